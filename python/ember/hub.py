"""ember.hub: torch.hub's loader. A repository is a directory with a hubconf.py whose public
callables are the entry points (and whose `dependencies` list names required packages).
source='local' loads from a directory; source='github' uses the copy cached under get_dir()
(owner_repo_ref) and downloads the repository's zip archive from GitHub only when it is not
cached (which needs network access). load_state_dict_from_url likewise reads its cached file and
downloads only what is missing; download_url_to_file takes any URL urllib opens (file:// too)."""
import hashlib
import importlib.util
import os
import re
import shutil
import sys
import tempfile
import urllib.request
import warnings
import zipfile
from contextlib import contextmanager
from urllib.parse import urlparse

__all__ = ["download_url_to_file", "get_dir", "help", "list", "load", "load_state_dict_from_url",
           "set_dir"]

MODULE_HUBCONF = "hubconf.py"
VAR_DEPENDENCY = "dependencies"
HASH_REGEX = re.compile(r"-([a-f0-9]*)\.")
_hub_dir = None


def _torch_home():
    return os.path.expanduser(os.getenv("TORCH_HOME", os.path.join(
        os.getenv("XDG_CACHE_HOME", "~/.cache"), "torch")))


def get_dir():
    """The hub cache directory: set_dir's, else $TORCH_HOME/hub ($TORCH_HOME defaults to
    $XDG_CACHE_HOME/torch, that to ~/.cache), as torch's (the same cache is shared)."""
    return _hub_dir if _hub_dir is not None else os.path.join(_torch_home(), "hub")


def set_dir(d):
    """Sets the directory get_dir() returns."""
    global _hub_dir
    _hub_dir = os.path.expanduser(os.fspath(d))


@contextmanager
def _on_sys_path(path):
    sys.path.insert(0, path)
    try:
        yield
    finally:
        sys.path.remove(path)


def _import_hubconf(repo_dir):
    path = os.path.join(repo_dir, MODULE_HUBCONF)
    if not os.path.isfile(path):
        raise FileNotFoundError(f"hub: no {MODULE_HUBCONF} in {repo_dir!r}")
    spec = importlib.util.spec_from_file_location("hubconf", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _entry(module, model):
    if not isinstance(model, str):
        raise ValueError("Invalid input: model should be a string of function name")
    missing = [p for p in (getattr(module, VAR_DEPENDENCY, None) or [])
               if importlib.util.find_spec(p) is None]
    if missing:
        raise RuntimeError(f"Missing dependencies: {', '.join(missing)}")
    fn = getattr(module, model, None)
    if fn is None or not callable(fn):
        raise RuntimeError(f"Cannot find callable {model} in hubconf")
    return fn


def _parse_repo(github):
    owner_repo, _, ref = github.partition(":")
    owner, slash, repo = owner_repo.partition("/")
    if not slash or not owner or not repo:
        raise ValueError(f'Invalid github repo "{github}": expected "repo_owner/repo_name[:ref]"')
    return owner, repo, ref or "main"


def _check_trust(owner, repo, trust_repo, hub_dir):
    listed = os.path.join(hub_dir, "trusted_list")
    trusted = set()
    if os.path.exists(listed):
        with open(listed) as f:
            trusted = {line.strip() for line in f}
    key = f"{owner}_{repo}"
    if key in trusted or owner in ("pytorch", "facebookresearch", "facebookincubator", "fairinternal"):
        return
    if trust_repo is None:
        warnings.warn("You are about to download and run code from an untrusted repository. In a "
                      "future release, this won't be allowed. To add the repository to your trusted "
                      "list, change the command to load(..., trust_repo=False) and a command "
                      "prompt will appear asking for an explicit confirmation of trust, or "
                      f"load(..., trust_repo=True), which will assume that the prompt is to be "
                      f"answered with 'yes'.", stacklevel=3)
        return
    if trust_repo is not True:
        answer = input(f"The repository {owner}/{repo} does not belong to the list of trusted "
                       f"repositories and as such cannot be downloaded. Do you trust this "
                       f"repository and wish to add it to the trusted list of repositories (y/N)?")
        if answer.lower() not in ("y", "yes"):
            raise Exception("Untrusted repository.")
    os.makedirs(hub_dir, exist_ok=True)
    with open(listed, "a") as f:
        f.write(key + "\n")


def _cached_repo(github, force_reload, trust_repo, verbose):
    hub_dir = get_dir()
    owner, repo, ref = _parse_repo(github)
    repo_dir = os.path.join(hub_dir, "_".join([owner, repo, ref.replace("/", "_")]))
    _check_trust(owner, repo, trust_repo, hub_dir)
    if os.path.exists(repo_dir) and not force_reload:
        if verbose:
            sys.stderr.write(f"Using cache found in {repo_dir}\n")
        return repo_dir
    os.makedirs(hub_dir, exist_ok=True)
    archive = os.path.join(hub_dir, ref.replace("/", "_") + ".zip")
    download_url_to_file(f"https://github.com/{owner}/{repo}/zipball/{ref}", archive, progress=False)
    with zipfile.ZipFile(archive) as z:
        root = z.namelist()[0].split("/")[0]
        for name in z.namelist():  # refuse members that would land outside hub_dir
            if os.path.isabs(name) or ".." in name.split("/"):
                raise ValueError(f"hub: unsafe path {name!r} in the archive of {github}")
        shutil.rmtree(repo_dir, ignore_errors=True)
        z.extractall(hub_dir)
    os.remove(archive)
    shutil.move(os.path.join(hub_dir, root), repo_dir)
    return repo_dir


def _repo_dir(repo_or_dir, source, force_reload, trust_repo, verbose):
    source = source.lower()
    if source not in ("github", "local"):
        raise ValueError(f'Unknown source: "{source}". Allowed values: "github" | "local".')
    if source == "local":
        return repo_or_dir
    return _cached_repo(repo_or_dir, force_reload, trust_repo, verbose)


def load(repo_or_dir, model, *args, source="github", trust_repo="check", force_reload=False,
         verbose=True, skip_validation=False, **kwargs):
    """The object the entry point `model` of the repository's hubconf.py returns for
    (*args, **kwargs)."""
    repo_dir = _repo_dir(repo_or_dir, source, force_reload, trust_repo, verbose)
    with _on_sys_path(repo_dir):
        return _entry(_import_hubconf(repo_dir), model)(*args, **kwargs)


def list(github, force_reload=False, skip_validation=False, trust_repo="check", verbose=True,  # noqa: A001
         *, source="github"):
    """The names of the repository's entry points (hubconf.py's public callables)."""
    repo_dir = _repo_dir(github, source, force_reload, trust_repo, verbose)
    with _on_sys_path(repo_dir):
        module = _import_hubconf(repo_dir)
    return [n for n in dir(module) if callable(getattr(module, n)) and not n.startswith("_")]


def help(github, model, force_reload=False, skip_validation=False, trust_repo="check", *,  # noqa: A001
         source="github"):
    """The docstring of the entry point `model`."""
    repo_dir = _repo_dir(github, source, force_reload, trust_repo, True)
    with _on_sys_path(repo_dir):
        return _entry(_import_hubconf(repo_dir), model).__doc__


def download_url_to_file(url, dst, hash_prefix=None, progress=True):
    """Copies the object at `url` to the file `dst` (through a temporary file in the same
    directory, renamed at the end); with hash_prefix, the SHA-256 must start with it."""
    dst = os.path.expanduser(os.fspath(dst))
    with urllib.request.urlopen(urllib.request.Request(url, headers={"User-Agent": "ember.hub"})) as u:
        sha = hashlib.sha256() if hash_prefix is not None else None
        fd, tmp = tempfile.mkstemp(dir=os.path.dirname(os.path.abspath(dst)), suffix=".partial")
        try:
            with os.fdopen(fd, "wb") as f:
                while True:
                    block = u.read(1 << 16)
                    if not block:
                        break
                    f.write(block)
                    if sha is not None:
                        sha.update(block)
            if sha is not None and not sha.hexdigest().startswith(hash_prefix):
                raise RuntimeError(f'invalid hash value (expected "{hash_prefix}", got '
                                   f'"{sha.hexdigest()}")')
            shutil.move(tmp, dst)
        finally:
            if os.path.exists(tmp):
                os.remove(tmp)


def load_state_dict_from_url(url, model_dir=None, map_location=None, progress=True,
                             check_hash=False, file_name=None, weights_only=False):
    """ember.load of the file at `url`, kept in model_dir (default <get_dir()>/checkpoints):
    downloaded once, read from there afterwards."""
    from .serialization import load as _load
    model_dir = model_dir if model_dir is not None else os.path.join(get_dir(), "checkpoints")
    os.makedirs(model_dir, exist_ok=True)
    filename = file_name if file_name is not None else os.path.basename(urlparse(url).path)
    cached = os.path.join(model_dir, filename)
    if not os.path.exists(cached):
        sys.stdout.write(f'Downloading: "{url}" to {cached}\n')
        match = HASH_REGEX.search(filename) if check_hash else None
        download_url_to_file(url, cached, match.group(1) if match else None, progress=progress)
    return _load(cached, map_location=map_location, weights_only=weights_only)

