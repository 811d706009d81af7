"""The shared corpus of real third-party files (../shared/corpus): never copied into the repository.

Tests that use it skip when it is absent; MOCAP_IO_CORPUS points elsewhere if needed.
"""

import csv
import os
import pathlib

import pytest

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


def by_path(rows):
    """Manifest rows as pytest parameters named by their path ([] without a corpus: the test is skipped)."""
    return [pytest.param(row, id=row["path"]) for row in rows]
