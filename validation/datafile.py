"""Committed data files, some stored gzipped (NAME.csv.gz) to keep the working tree that travels
to the device machine under its 64 MiB limit (validation/README.md, "Reproduce", "Stored gzipped").
A reader names the plain file; open_text opens NAME.csv.gz where NAME.csv is not there.
"""
import glob
import gzip
import os


def resolve(path):
    """path itself if it exists, else path + '.gz' if that exists, else path (open then fails)."""
    if not os.path.exists(path) and os.path.exists(path + ".gz"):
        return path + ".gz"
    return path


def open_text(path, newline=None):
    """A text file, gzipped (a name ending .gz) or not."""
    path = resolve(path)
    if path.endswith(".gz"):
        return gzip.open(path, "rt", newline=newline)
    return open(path, newline=newline)


def data_glob(pattern):
    """Files matching pattern (e.g. DIR/micro_x*.csv), plain or gzipped, in name order."""
    return sorted(set(glob.glob(pattern)) | set(glob.glob(pattern + ".gz")))
