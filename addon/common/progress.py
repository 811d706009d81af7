"""Long imports as generators of progress steps: run at once (scripts, background, redo) or a slice
at a time from a modal operator, so that Blender keeps drawing the progress and Esc cancels.

A work generator yields (fraction done, text) between steps and returns its result; it makes its
data-blocks inside `transaction.all_or_nothing`, so closing it early removes them.
"""

import math
import time

import bpy
from bpy.props import BoolProperty

from . import failures


class Progress:
    """The window-manager progress bar and a status-bar text, until close()."""

    def __init__(self, context, title):
        self.title = title
        self.window_manager = context.window_manager
        self.workspace = context.workspace  # None when Blender runs in the background
        self.window_manager.progress_begin(0, 100)

    def show(self, fraction, text=""):
        self.window_manager.progress_update(100 * fraction)
        if self.workspace is not None:
            self.workspace.status_text_set(f"{self.title}: {text}" if text else self.title)

    def close(self):
        self.window_manager.progress_end()
        if self.workspace is not None:
            self.workspace.status_text_set(None)


def advance(work, progress, seconds=None):
    """Run `work` for at least one step and about `seconds` (None: to its end); (True, its
    result) once it has ended, else (False, None)."""
    deadline = None if seconds is None else time.perf_counter() + seconds
    try:
        while True:
            progress.show(*next(work))
            if deadline is not None and time.perf_counter() >= deadline:
                return False, None
    except StopIteration as end:
        return True, end.value


def run(work, context, title):
    """Run `work` to its end with progress shown; returns its result."""
    progress = Progress(context, title)
    try:
        return advance(work, progress)[1]
    finally:
        progress.close()


def scene_frames(context, frames, title):
    """A generator: (i, frame) for each of `frames` (scene frames, between whole ones too), with
    the scene set to that frame and progress shown under `title`; the scene's own frame comes back
    after, however the loop ends."""
    scene = context.scene
    current, subframe = scene.frame_current, scene.frame_subframe
    progress = Progress(context, title)
    try:
        for i, frame in enumerate(frames):
            whole = math.floor(frame)
            scene.frame_set(int(whole), subframe=float(frame - whole))
            yield i, frame
            progress.show((i + 1) / len(frames), f"frame {frame:g}")
    finally:
        scene.frame_set(current, subframe=subframe)
        progress.close()


class SteppedImport:
    """Operator mixin: `steps(context)` returns the work generator, `finished(context, result)`
    reports its result. Started by a user (file browser or drop) in a Blender with a window, the
    work runs modally, ~50 ms per timer tick: Blender keeps drawing and Esc cancels, leaving
    nothing. Scripts, the background and redo run it at once, so the call returns when it is done."""

    interactive: BoolProperty(options={"HIDDEN", "SKIP_SAVE"})
    _SLICE = 0.05  # seconds of work per timer tick

    def execute(self, context):
        if not self.interactive or bpy.app.background or self.is_repeat():  # pyright: ignore[reportAttributeAccessIssue]
            return self._outcome(context, lambda: (True, run(self.steps(context), context, self.bl_label)))  # pyright: ignore[reportAttributeAccessIssue]
        self._start(context)
        context.window_manager.modal_handler_add(self)
        return {"RUNNING_MODAL"}

    def modal(self, context, event):
        if event.type == "ESC":
            self._stop(context)
            self._work.close()  # the work's all-or-nothing block removes what it made
            self.report({"WARNING"}, "Import cancelled: nothing was added")  # pyright: ignore[reportAttributeAccessIssue]
            return {"CANCELLED"}
        if event.type != "TIMER":
            return {"RUNNING_MODAL"}  # other input waits: the scene must not change under the import
        outcome = self._outcome(context, lambda: advance(self._work, self._progress, self._SLICE))
        if outcome != {"RUNNING_MODAL"}:
            self._stop(context)
        return outcome

    def _start(self, context):
        self._work, self._progress = self.steps(context), Progress(context, self.bl_label)  # pyright: ignore[reportAttributeAccessIssue]
        self._timer = context.window_manager.event_timer_add(0.001, window=context.window)

    def _stop(self, context):
        context.window_manager.event_timer_remove(self._timer)
        self._progress.close()

    def _outcome(self, context, call):
        """Run `call()` -> (ended, result): {'FINISHED'} once ended (the result reported),
        {'RUNNING_MODAL'} before, {'CANCELLED'} with any error reported as one message naming the
        file (the work, all or nothing, has left nothing behind)."""
        try:
            ended, result = call()
        except Exception as error:
            self.report({"ERROR"}, failures.message(error, getattr(self, "filepath", "")))  # pyright: ignore[reportAttributeAccessIssue]
            return {"CANCELLED"}
        if not ended:
            return {"RUNNING_MODAL"}
        self.finished(context, result)  # pyright: ignore[reportAttributeAccessIssue]
        return {"FINISHED"}
