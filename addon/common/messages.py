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
        """Every message, warnings first: scripts that took the messages as one list still can."""
        yield from self.warnings
        yield from self.notes

    def __len__(self):
        return len(self.warnings) + len(self.notes)

    def __getitem__(self, index):
        return [*self][index]

    def report(self, operator):
        """Report every message on `operator`, one line each: warnings first, as WARNING, then notes, as INFO."""
        for level, texts in (("WARNING", self.warnings), ("INFO", self.notes)):
            for text in texts:
                operator.report({level}, one_line(text))
