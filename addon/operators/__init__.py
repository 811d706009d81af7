"""One module per file format: its operators' options, menus and drag-and-drop, and the plain
functions scripts call (`import_bvh`, `export_bvh`, ...); and retarget.py, the retarget panel and
its operators. No data building here: see build/ and read/."""
