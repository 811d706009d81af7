"""A progress bar on standard error for the commands that take a while (`batch`, a GIF `preview`)."""

import sys
import time


class Progress:
    """A progress bar on a terminal (`stream`, default standard error, a TTY), redrawn at most ten
    times a second; silent otherwise. Counts `unit`s done out of `total`, errors among them, the rate
    and the time left; `skip` counts items done without work (they do not add to the rate)."""

    def __init__(self, total, stream=None, enabled=True, unit="files"):
        self.total, self.unit, self.done, self.errors, self.skipped = total, unit, 0, 0, 0
        self.stream = sys.stderr if stream is None else stream
        self.enabled = enabled and total > 0 and self.stream.isatty()
        self.start = self.shown = time.monotonic()

    def skip(self, outcomes):
        """Count `outcomes` (dicts with a "status") as done already."""
        for outcome in outcomes:
            self.skipped += 1
            self.update(outcome)

    def update(self, outcome=None):
        """One more done (`outcome`: a dict whose "status" may be "error")."""
        self.done += 1
        self.errors += outcome is not None and outcome.get("status") == "error"
        now = time.monotonic()
        if self.enabled and (now - self.shown >= 0.1 or self.done == self.total):
            self.shown = now
            worked = self.done - self.skipped
            rate = worked / max(now - self.start, 1e-9)
            left = f", {(self.total - self.done) / rate:.0f} s left" if rate else ""
            filled = int(30 * self.done / self.total)
            bar = "#" * filled + "." * (30 - filled)
            errors = f", {self.errors} error{'s' * (self.errors != 1)}" if self.errors else ""
            self.stream.write(f"\r[{bar}] {self.done}/{self.total} {self.unit}{errors}, {rate:.1f}/s{left}  ")
            self.stream.flush()

    def close(self):
        if self.enabled:
            self.stream.write("\n")
            self.stream.flush()
