"""What an import leaves selected, as Blender's own importers do: the new objects selected, the
main one active, everything else deselected."""


def select_only(context, objects, active=None):
    """Select `objects` (those that can be: an object hidden in viewports cannot), deselect every
    other object of the view layer and make `active` (default: the last of `objects`) active."""
    for other in context.view_layer.objects.selected:
        other.select_set(False)
    for obj in objects:
        obj.select_set(True)
    active = active if active is not None else (objects[-1] if objects else None)
    if active is not None:
        context.view_layer.objects.active = active
