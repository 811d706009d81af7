"""The shared corpus of real third-party files (../shared/corpus): never copied into the repository.

Tests that use it skip when it is absent; MOCAP_IO_CORPUS points elsewhere if needed.
"""

import contextlib
import csv
import os
import pathlib
import re

import pytest

from mocap_io.core.errors import FrameCountWarning

CORPUS = pathlib.Path(
    os.environ.get("MOCAP_IO_CORPUS", pathlib.Path(__file__).resolve().parents[2] / "shared" / "corpus")
)
needs_corpus = pytest.mark.skipif(not CORPUS.is_dir(), reason=f"no corpus at {CORPUS}")


def manifest(fmt):
    """Rows of MANIFEST.tsv for one format, as dicts (path, expect, quirks, ...); [] without a corpus."""
    table = CORPUS / "MANIFEST.tsv"
    if not table.is_file():
        return []
    with open(table, newline="", encoding="utf-8") as f:
        return [row for row in csv.DictReader(f, delimiter="\t") if row["format"] == fmt]


def frame_count_warning(path):
    """`pytest.warns` of the FrameCountWarning that a lenient read of the corpus file `path` gives
    where the manifest counts more rows than the file declares frames ("3069 (rows 3070)"), else a
    context expecting nothing."""
    frames = [row["frames"] for row in manifest(path.split("/")[0]) if row["path"] == path]
    rows = re.search(r"\(rows (\d+)\)", frames[0]) if frames else None
    return pytest.warns(FrameCountWarning, match=f"frame {rows[1]} found") if rows else contextlib.nullcontext()


def by_path(rows):
    """Manifest rows as pytest parameters named by their path ([] without a corpus: the test is skipped)."""
    return [pytest.param(row, id=row["path"]) for row in rows]
