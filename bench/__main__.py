"""``python -m bench``: run the benchmark, or render docs/benchmarks.md from a result.

python -m bench --scale small --out /tmp/bench.json
python -m bench --scale full --out bench/results/latest.json --docs docs/benchmarks.md
python -m bench --from-json bench/results/latest.json --docs docs/benchmarks.md
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
import tempfile
from pathlib import Path

from bench.progress import say
from bench.report import markdown, summary, with_verdicts
from bench.scales import SCALES


def _at_least_one(text: str) -> int:
    count = int(text)
    if count < 1:
        raise argparse.ArgumentTypeError(f"{count}: each recompute runs at least once")
    return count


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m bench", description=__doc__.splitlines()[0])
    parser.add_argument("--scale", choices=sorted(SCALES), help="how much data")
    parser.add_argument("--out", type=Path, help="write the result JSON here")
    parser.add_argument("--docs", type=Path, help="also write the Markdown report here")
    parser.add_argument("--from-json", type=Path, help="render --docs from this result; no run")
    parser.add_argument("--work", type=Path, help="work folder (default: a new temporary one)")
    parser.add_argument("--keep", action="store_true", help="keep the work folder")
    parser.add_argument("--seed", type=int, help="generator seed (default: the scale's)")
    parser.add_argument("--chunk-points", type=int, help="points per chunk file")
    parser.add_argument(
        "--repeats",
        type=_at_least_one,
        help="runs of each full recompute on Spark, alternating (default: the scale's)",
    )
    return parser


def _command(args: argparse.Namespace) -> str:
    parts = ["python -m bench", f"--scale {args.scale}", f"--out {args.out}"]
    if args.docs:
        parts.append(f"--docs {args.docs}")
    if args.seed is not None:
        parts.append(f"--seed {args.seed}")
    if args.chunk_points is not None:
        parts.append(f"--chunk-points {args.chunk_points}")
    if args.repeats is not None:
        parts.append(f"--repeats {args.repeats}")
    return " ".join(parts)


def main(argv: list[str] | None = None) -> int:
    parser = _parser()
    args = parser.parse_args(argv)
    if args.from_json:
        if not args.docs:
            parser.error("--from-json needs --docs")
        doc = json.loads(args.from_json.read_text(encoding="utf-8"))
        args.docs.write_text(markdown(doc, str(doc.get("command", ""))), encoding="utf-8")
        print(summary(doc))
        return 0
    if not args.scale or not args.out:
        parser.error("--scale and --out are required (or --from-json with --docs)")
    scale = SCALES[args.scale]
    overrides: dict[str, object] = {}
    if args.seed is not None:
        overrides["seed"] = args.seed
    if args.chunk_points is not None:
        overrides["chunk_points"] = args.chunk_points
    if args.repeats is not None:
        overrides["full_build_repeats"] = args.repeats
    scale = scale.with_overrides(**overrides) if overrides else scale

    from bench.runner import Benchmark

    work = args.work or Path(tempfile.mkdtemp(prefix="tsdedup-bench-"))
    work.mkdir(parents=True, exist_ok=True)
    say("bench", f"scale {scale.name}, work folder {work}")
    try:
        doc = Benchmark(scale, work).run()
    finally:
        if not args.keep:
            shutil.rmtree(work, ignore_errors=True)
    doc["command"] = _command(args)
    doc = with_verdicts(doc)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(doc, indent=2) + "\n", encoding="utf-8")
    if args.docs:
        args.docs.write_text(markdown(doc, doc["command"]), encoding="utf-8")
    say("bench", f"result in {args.out}")
    print(summary(doc))
    return 0


if __name__ == "__main__":
    sys.exit(main())
