"""Progress lines on stderr: elapsed time, step, detail."""

from __future__ import annotations

import sys
import time

_STARTED = time.monotonic()


def say(step: str, detail: str = "") -> None:
    """Print ``[mm:ss] step: detail`` on stderr."""
    elapsed = int(time.monotonic() - _STARTED)
    text = f"[{elapsed // 60:02d}:{elapsed % 60:02d}] {step}"
    if detail:
        text += f": {detail}"
    print(text, file=sys.stderr, flush=True)
