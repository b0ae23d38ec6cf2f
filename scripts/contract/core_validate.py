"""The second validator: openapi-core checks the answers schemathesis and the fault cases got.

schemathesis validates with its own code; openapi-core is an independent implementation of the
same rules (status documented, headers, media type, body schema), so a mistake in either one's
reading of openapi.yaml shows up as a disagreement. Runs in its own virtual environment
(.venv-openapi-core: openapi-core 0.23 needs openapi-spec-validator below 0.9, which
schemathesis' environment has).

    core_validate.py SPEC BASE HAR EXCHANGES
      BASE       the service the answers came from (the spec's server is pointed at it)
      HAR        schemathesis' --report har file
      EXCHANGES  fault_cases.py's JSON lines
"""

import base64
import json
import sys
from urllib.parse import parse_qsl, urlsplit

import yaml
from openapi_core import Config, OpenAPI
from openapi_core.testing import MockRequest, MockResponse
from werkzeug.datastructures import ImmutableMultiDict


def exchanges_from_har(path):
    with open(path) as file:
        har = json.load(file)
    for entry in har["log"]["entries"]:
        request, response = entry["request"], entry["response"]
        if not response.get("status"):
            continue  # no answer (connection error): nothing to validate
        content = response.get("content", {})
        text = content.get("text") or ""
        body = base64.b64decode(text) if content.get("encoding") == "base64" else text.encode()
        yield {
            "method": request["method"], "url": request["url"],
            "requestHeaders": {h["name"]: h["value"] for h in request.get("headers", [])},
            "status": response["status"], "headers": [[h["name"], h["value"]] for h in response.get("headers", [])],
            "body": body,
        }


def exchanges_from_lines(path):
    with open(path) as file:
        for line in file:
            exchange = json.loads(line)
            exchange["body"] = base64.b64decode(exchange["body"])
            yield exchange


def validate(api, base, exchange):
    url = urlsplit(exchange["url"])
    headers = dict(exchange["headers"])
    lower = {name.lower(): value for name, value in headers.items()}
    request = MockRequest(base, exchange["method"], url.path, headers=exchange["requestHeaders"])
    request.parameters.query = ImmutableMultiDict(parse_qsl(url.query, keep_blank_values=True))
    response = MockResponse(
        exchange["body"], status_code=exchange["status"], headers=headers,
        content_type=lower.get("content-type", ""))
    api.validate_response(request, response)


def main(spec_path, base, har_path, exchanges_path):
    with open(spec_path) as file:
        spec = yaml.safe_load(file)
    spec["servers"] = [{"url": base}]
    config = Config(extra_media_type_deserializers={"application/problem+json": json.loads})
    api = OpenAPI.from_dict(spec, config=config)
    checked, skipped, failures = 0, 0, []
    for source, exchanges in (("schemathesis", exchanges_from_har(har_path)),
                              ("fault cases", exchanges_from_lines(exchanges_path))):
        for exchange in exchanges:
            if exchange["status"] == 405:
                # No operation declares it (see MethodNotAllowed); fault_cases.py checks it.
                skipped += 1
                continue
            try:
                validate(api, base, exchange)
                checked += 1
            except Exception as error:  # openapi-core's validation errors, and path/operation not found
                cause = getattr(error, "__cause__", None)
                failures.append(f"{source}: {exchange['method']} {exchange['url']} -> {exchange['status']}: "
                                f"{type(error).__name__}: {error}" + (f" ({cause})" if cause else ""))
    print(f"openapi-core: {checked} answers valid, {len(failures)} not, {skipped} 405s left to the fault cases")
    for failure in failures[:20]:
        print(f"FAILED {failure}", file=sys.stderr)
    return 1 if failures or checked == 0 else 0


if __name__ == "__main__":
    sys.exit(main(*sys.argv[1:]))
