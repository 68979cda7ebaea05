"""Math-Verify's verdict on each pair, for bench/math-verify.ts.

Reads JSON lines {"id", "gold", "response"} on stdin and writes one JSON line per pair to stdout:
{"id", "verdict": true | false | "error", "ms", "note"?}. The call is the one Math-Verify's README
shows: verify(parse("$" + gold + "$"), parse(response)) with the library's defaults (both parses
with LaTeX and plain-expression extraction, 5 s timeouts, errors logged and read as False; see
math_verify/parser.py `parse` and math_verify/grader.py `verify` in the 0.9.0 wheel).

"error" marks a pair whose verdict came from a failure rather than a comparison: the gold did not
parse, or a comparison raised or timed out and none succeeded (the library returns False for these;
the note says which). A prediction that does not parse is a real verdict (False), noted.
"""

import json
import logging
import sys
import time

from math_verify import parse, verify


class Failures(logging.Handler):
    """Collects the library's own reports of a comparison that raised or timed out."""

    def __init__(self):
        super().__init__(level=logging.DEBUG)
        self.messages = []

    def emit(self, record):
        if record.exc_info or "Timeout" in record.getMessage():
            self.messages.append(record.getMessage())


def main():
    failures = Failures()
    for name in ("math_verify", "math_verify.grader", "math_verify.parser"):
        logger = logging.getLogger(name)
        logger.addHandler(failures)
        logger.setLevel(logging.DEBUG)
        logger.propagate = False
    verify(parse("$1$"), parse("$1$"))  # loads the parser, so the first pair's time is its own
    for line in sys.stdin:
        if not line.strip():
            continue
        pair = json.loads(line)
        failures.messages.clear()
        start = time.perf_counter()
        gold = parse("$" + pair["gold"] + "$")
        pred = parse(pair["response"])
        verdict = verify(gold, pred)
        ms = (time.perf_counter() - start) * 1000
        out = {"id": pair["id"], "verdict": verdict, "ms": round(ms, 3)}
        if len(gold) == 0:
            out["verdict"] = "error"
            out["note"] = "gold did not parse"
        elif not verdict and failures.messages:
            out["verdict"] = "error"
            out["note"] = "; ".join(sorted(set(failures.messages)))[:200]
        elif len(pred) == 0:
            out["note"] = "prediction did not parse"
        print(json.dumps(out), flush=False)
    sys.stdout.flush()


if __name__ == "__main__":
    main()
