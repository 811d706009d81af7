"""What an import tells the user besides its objects, in kinds kept apart from the start: warnings
(something in a file was odd: a reader's FileWarning, reported as WARNING), notes (what a reader or
the importer chose or wrote: a reader's FileNote, the importer's own, reported as INFO) and details
for the curious (how a file was decoded: printed on the console only)."""

import warnings
from contextlib import contextmanager
from dataclasses import dataclass, field

from ...core.errors import FileNote, one_line
from .failures import artist_words


@dataclass
class Messages:
    """An import's `warnings` (the Python warnings its readers raised), `notes` (its own) and
    `details` (for the console)."""

    warnings: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    details: list[str] = field(default_factory=list)

    def __iter__(self):
        """Every message, warnings first: scripts that took the messages as one list still can."""
        yield from self.warnings
        yield from self.notes
        yield from self.details

    def __len__(self):
        return len(self.warnings) + len(self.notes) + len(self.details)

    def __getitem__(self, index):
        return [*self][index]

    @contextmanager
    def reading(self):
        """Catch the Python warnings raised in the block (a reader's) into these messages: a
        FileNote as a note, any other as a warning (core.errors: readers say which kind)."""
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            yield self
        for warning in caught:
            kind = self.notes if issubclass(warning.category, FileNote) else self.warnings
            kind.append(str(warning.message))

    def report(self, operator):
        """Report the messages on `operator`, one line each in an artist's words (see
        failures.artist_words): warnings first, as WARNING, then notes, as INFO; print the details
        on the console."""
        for level, texts in (("WARNING", self.warnings), ("INFO", self.notes)):
            for text in texts:
                operator.report({level}, artist_words(one_line(text)))
        for text in self.details:
            print(f"Mocap I/O: {one_line(text)}")
