"""What an import tells the user besides its objects, in two kinds kept apart from the start: the
readers' warnings (something in a file was odd: reported as WARNING) and the importer's notes (what
it chose or wrote: reported as INFO)."""

from dataclasses import dataclass, field

from ...core.errors import one_line


@dataclass
class Messages:
    """An import's `warnings` (the Python warnings its readers raised) and `notes` (its own)."""

    warnings: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    def __iter__(self):
        """Every message, warnings first (scripts that print them all need not tell them apart)."""
        yield from self.warnings
        yield from self.notes

    def report(self, operator):
        """Report every message on `operator`, one line each: warnings first, as WARNING, then notes, as INFO."""
        for level, texts in (("WARNING", self.warnings), ("INFO", self.notes)):
            for text in texts:
                operator.report({level}, one_line(text))
