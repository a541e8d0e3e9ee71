"""Downloading and unpacking dataset files, as torchvision.datasets.utils.

Files come over urllib (http(s):// and file:// URLs). Every archive is checked against the
md5 torchvision publishes for it before it is unpacked; tar members are unpacked with
tarfile's "data" filter, so an archive cannot write outside its target folder. Without
network access a download raises RuntimeError naming the URL.
"""
import bz2
import gzip
import hashlib
import lzma
import os
import shutil
import tarfile
import urllib.error
import urllib.request
import zipfile

USER_AGENT = "ember.vision"
_CHUNK = 1024 * 1024


def _check_path(path, op):
    """path as a str; an int would be taken by open() and os.stat as a file descriptor (and
    closed after reading), so only str and os.PathLike are paths here."""
    if not isinstance(path, (str, os.PathLike)):
        raise TypeError(f"{op}: expected a path (str or os.PathLike), got {type(path).__name__}")
    return os.fspath(path)


def calculate_md5(fpath, chunk_size=_CHUNK):
    fpath = _check_path(fpath, "calculate_md5")
    md5 = hashlib.md5(usedforsecurity=False)
    with open(fpath, "rb") as f:
        while chunk := f.read(chunk_size):
            md5.update(chunk)
    return md5.hexdigest()


def check_md5(fpath, md5, **kwargs):
    return md5 == calculate_md5(fpath, **kwargs)


def check_integrity(fpath, md5=None):
    """True when `fpath` is a file and, if md5 is given, its md5 matches."""
    if not os.path.isfile(_check_path(fpath, "check_integrity")):
        return False
    return True if md5 is None else check_md5(fpath, md5)


def _urlopen(url, timeout=30):
    # One place that touches the network, so tests can swap it for a local opener.
    request = urllib.request.Request(url, headers={"User-Agent": USER_AGENT})
    return urllib.request.urlopen(request, timeout=timeout)


def download_url(url, root, filename=None, md5=None, max_redirect_hops=3):
    """Download `url` into root/filename (default: the URL's last part) unless a file with
    the right md5 is already there; RuntimeError when it cannot be fetched or is corrupted."""
    root = os.path.expanduser(_check_path(root, "download_url"))
    filename = filename or os.path.basename(url)
    fpath = os.path.join(root, filename)
    os.makedirs(root, exist_ok=True)
    if check_integrity(fpath, md5):
        return
    partial = fpath + ".partial"
    try:
        with _urlopen(url) as response, open(partial, "wb") as out:
            shutil.copyfileobj(response, out, _CHUNK)
    except (urllib.error.URLError, OSError, ValueError) as e:
        if os.path.exists(partial):
            os.remove(partial)
        raise RuntimeError(f"download_url: could not download {url} ({e}); without network access, "
                           f"place {filename} in {root} yourself") from None
    os.replace(partial, fpath)
    if not check_integrity(fpath, md5):
        raise RuntimeError(f"download_url: {fpath} downloaded from {url} is corrupted: md5 "
                           f"{calculate_md5(fpath)} != expected {md5}")


_COMPRESSORS = {".gz": gzip.open, ".bz2": bz2.open, ".xz": lzma.open}
_TAR_SUFFIXES = (".tar", ".tar.gz", ".tgz", ".tar.bz2", ".tbz", ".tar.xz", ".txz")


def _decompress(from_path, to_path=None, remove_finished=False):
    suffix = next(s for s in _COMPRESSORS if from_path.endswith(s))
    if to_path is None:
        to_path = from_path[: -len(suffix)]
    with _COMPRESSORS[suffix](from_path, "rb") as rfh, open(to_path, "wb") as wfh:
        shutil.copyfileobj(rfh, wfh, _CHUNK)
    if remove_finished:
        os.remove(from_path)
    return to_path


def extract_archive(from_path, to_path=None, remove_finished=False):
    """Unpack a .tar(.gz/.bz2/.xz), .tgz or .zip archive into to_path (default: its folder), or
    decompress a single .gz/.bz2/.xz file. Returns the folder (archives) or the file written."""
    from_path = _check_path(from_path, "extract_archive")
    if to_path is None:
        to_path = os.path.dirname(from_path)
    if from_path.endswith(_TAR_SUFFIXES):
        with tarfile.open(from_path, "r:*") as tar:
            tar.extractall(to_path, filter="data")
    elif from_path.endswith(".zip"):
        with zipfile.ZipFile(from_path) as z:
            z.extractall(to_path)  # zipfile strips absolute paths and '..' from member names
    elif from_path.endswith(tuple(_COMPRESSORS)):
        target = os.path.join(to_path, os.path.basename(from_path).rsplit(".", 1)[0]) \
            if os.path.isdir(to_path) else to_path
        return _decompress(from_path, target, remove_finished)
    else:
        raise RuntimeError(f"extract_archive: {from_path}: unsupported archive type (known: "
                           f"{', '.join(_TAR_SUFFIXES + ('.zip',) + tuple(_COMPRESSORS))})")
    if remove_finished:
        os.remove(from_path)
    return to_path


def download_and_extract_archive(url, download_root, extract_root=None, filename=None, md5=None,
                                 remove_finished=False):
    download_root = os.path.expanduser(_check_path(download_root, "download_and_extract_archive"))
    extract_root = extract_root or download_root
    filename = filename or os.path.basename(url)
    download_url(url, download_root, filename, md5)
    archive = os.path.join(download_root, filename)
    return extract_archive(archive, extract_root, remove_finished)
