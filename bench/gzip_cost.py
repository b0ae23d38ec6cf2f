#!/usr/bin/env python3
"""What gzip costs and saves on the service's own bodies (issue 32; not part of `make bench`).

Starts the release service (demo catalog), exports
its pages for the first N ids, one 100-id batch and /metrics into a temporary folder, builds
bench/gzip-cost/GzipCost.swift with swiftc -O together with Sources/Gzip (the service's wrapper)
and Tests/GzipInflating,
and runs it: per-body microseconds of compressing with libdeflate at several levels with one
compressor, with a compressor per body, with zlib's level 6 for reference, of inflating, and the
sizes before and after. Prints Markdown tables.

Usage: bench/gzip_cost.py [--binary PATH] [--pages N]
"""
import argparse
import glob
import os
import subprocess
import tempfile

from bench import ROOT, SERVICE, get, start_service


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--binary", default=SERVICE, help="the service build to export bodies from")
    parser.add_argument("--pages", type=int, default=300)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="gzip-cost-") as work:
        service, port = start_service({}, binary=args.binary)
        try:
            ids = [f"p{i}" for i in range(1, args.pages + 1)]
            os.makedirs(os.path.join(work, "pages"))
            for product in ids:
                _, _, body = get(f"http://127.0.0.1:{port}/products/{product}")
                with open(os.path.join(work, "pages", product + ".json"), "wb") as f:
                    f.write(body)
            _, _, batch = get(f"http://127.0.0.1:{port}/products?ids=" + ",".join(ids[:100]))
            with open(os.path.join(work, "batch.json"), "wb") as f:
                f.write(batch)
            _, _, metrics = get(f"http://127.0.0.1:{port}/metrics")
            with open(os.path.join(work, "metrics.txt"), "wb") as f:
                f.write(metrics)
        finally:
            service.stop()
        binary = os.path.join(work, "gzip-cost")
        sources = sorted(glob.glob(os.path.join(ROOT, "Sources/Gzip/*.swift")))
        # The inflater's module imports Gzip; here both are one module, so without that line.
        for path in sorted(glob.glob(os.path.join(ROOT, "Tests/GzipInflating/*.swift"))):
            with open(path) as source:
                text = "".join(line for line in source if line.strip() != "import Gzip")
            sources.append(os.path.join(work, os.path.basename(path)))
            with open(sources[-1], "w") as copy:
                copy.write(text)
        subprocess.run(["swiftc", "-O", "-wmo", "-parse-as-library", "-swift-version", "6",
                        "-package-name", "product_details", "-module-name", "GzipCost",
                        "-I", os.path.join(ROOT, "Sources/CZlib"), "-I", os.path.join(ROOT, "Sources/CDeflate"),
                        *sources, os.path.join(ROOT, "bench/gzip-cost/GzipCost.swift"), "-o", binary],
                       check=True)
        subprocess.run([binary, work], check=True)


if __name__ == "__main__":
    main()
