# syntax=docker/dockerfile:1
# product-details and catalog-stub in one small image.
#   docker build -t product-details .
#   docker run --rm -p 8080:8080 product-details            # demo catalog built in
#   docker compose up                                        # with catalog-stub and Prometheus
# The binaries link the Swift runtime statically, so the runtime stage needs only libuv1, libisal2
# and libdeflate0, and the C/C++ runtime that debian:bookworm-slim already has
# (scripts/contract-test.sh checks this with ldd).

FROM swift:6.3-bookworm AS build
# DL3008: the Debian release is pinned by the base image tag (bookworm); exact package versions
# would break the build whenever the archive replaces them with a security update.
# hadolint ignore=DL3008
RUN apt-get update \
 && apt-get install -y --no-install-recommends libuv1-dev libisal-dev libdeflate-dev pkg-config \
 && rm -rf /var/lib/apt/lists/*
WORKDIR /src
# Manifest first: SwiftPM resolves nothing (no dependencies), but this keeps the source layer last.
COPY Package.swift ./
COPY Sources ./Sources
COPY Tests ./Tests
# The flags every release build takes (link-time optimization), as make and the tests build it.
# SC2046: its words are split on purpose, each a flag of its own.
COPY scripts/release-flags ./scripts/
# hadolint ignore=SC2046
RUN swift build -c release --static-swift-stdlib $(cat scripts/release-flags) --product product-details \
 && swift build -c release --static-swift-stdlib $(cat scripts/release-flags) --product catalog-stub \
 && mkdir -p /out \
 && cp .build/release/product-details .build/release/catalog-stub /out/

FROM debian:bookworm-slim
# DL3008: as above, bookworm is pinned by the tag. libuv1, libisal2 and libdeflate0 are the only
# shared libraries the binaries need beyond libc and libstdc++;
# ca-certificates is for TLS tooling in derived images.
# hadolint ignore=DL3008
RUN apt-get update \
 && apt-get install -y --no-install-recommends libuv1 libisal2 libdeflate0 ca-certificates \
 && rm -rf /var/lib/apt/lists/* \
 && useradd --system --uid 10001 --user-group --no-create-home --shell /usr/sbin/nologin app
COPY --from=build /out/product-details /out/catalog-stub /usr/local/bin/
USER 10001:10001
# A deeper per-thread cache of freed blocks for the loop threads (see AllocatorTuning.swift);
# glibc reads it only at start-up, so it is set where the process starts.
ENV HOST=0.0.0.0 \
    PORT=8080 \
    GLIBC_TUNABLES=glibc.malloc.tcache_count=128
EXPOSE 8080
STOPSIGNAL SIGTERM
# No curl in slim: bash's /dev/tcp sends GET /healthz to the port this container serves
# (PORT, so the same check works for catalog-stub on 8081) and wants a 200 status line.
HEALTHCHECK --interval=10s --timeout=3s --start-period=5s --retries=3 \
  CMD ["bash", "-c", "exec 3<>/dev/tcp/127.0.0.1/${PORT:-8080} && printf 'GET /healthz HTTP/1.1\\r\\nHost: localhost\\r\\nConnection: close\\r\\n\\r\\n' >&3 && read -r -t 2 version status rest <&3 && [ \"$status\" = 200 ]"]
ENTRYPOINT ["product-details"]
