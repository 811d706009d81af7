"""The errors the commands raise themselves, each with its exit code (see cli.main)."""


class MissingDependency(RuntimeError):
    """An optional dependency is not installed; the message says how to install it."""


class UsageError(ValueError):
    """Arguments that do not fit together or name what a command cannot do (found after parsing)."""


class CannotConvert(ValueError):
    """The data cannot go where it was asked to (a format that holds another kind of data)."""
