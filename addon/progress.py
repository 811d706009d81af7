"""Progress for long operations: the window-manager progress bar and a status-bar text."""

import contextlib


@contextlib.contextmanager
def progress(context, steps, title):
    """Yield a function `step(done, text)`; the bar and status text are cleared at the end."""
    wm = context.window_manager
    workspace = context.workspace  # None when Blender runs in the background

    def step(done, text=""):
        wm.progress_update(done)
        if workspace is not None:
            workspace.status_text_set(f"{title}: {text}" if text else title)

    wm.progress_begin(0, max(steps, 1))
    try:
        yield step
    finally:
        wm.progress_end()
        if workspace is not None:
            workspace.status_text_set(None)
