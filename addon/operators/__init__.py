"""One module per file format: its operators' options, menus and drag-and-drop, and the plain
functions scripts call (`import_bvh`, `export_bvh`, ...); retarget.py, the retarget panel and
its operators; cleanup.py, the markers panel with Fill Gaps and Filter. No data building here: see
to_blender/ and from_blender/."""
