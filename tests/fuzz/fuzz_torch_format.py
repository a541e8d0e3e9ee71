"""Coverage-guided fuzzing (atheris, libFuzzer for Python) of ember.load on PyTorch-format
files: the zip reader, the restricted unpickler and the tensor rebuilding. Every input must
load or raise one of the errors a bad file may raise; anything else (another exception
type, a crash, a hang past -timeout, memory past -rss_limit_mb) is a finding, which
libFuzzer saves as <artifact_prefix>crash-* and reports by a non-zero exit. `make fuzz` runs it:

    .venv/bin/python tests/fuzz/fuzz_torch_format.py build/asan/torch_corpus tests/fuzz/torch_corpus \\
        -max_total_time=60 -artifact_prefix=build/asan/ -rss_limit_mb=2048 -timeout=10

tests/fuzz/torch_corpus is the seed corpus: files written by torch.save and ember.save and
the hand-made hostile files of test_torch_format_safety.py (make_torch_corpus.py writes it).
"""
import io
import pickle
import sys
import warnings
import zipfile

import atheris

import ember
import ember.serialization.torch_format  # noqa: F401

# Coverage of every Python function loaded so far (ember.serialization, zipfile, pickle's
# Python unpickler, ...). instrument_all, not instrument_imports: an editable install
# loads ember through its own loader, which instrument_imports does not see.
atheris.instrument_all()

# What a bad file may raise (the types torch.load raises for the same files).
EXPECTED = (RuntimeError, ValueError, TypeError, EOFError, pickle.UnpicklingError)


def archive(data_pkl):
    """A well-formed archive around fuzzed pickle bytes, with storages 0 and 1 (16 and 8
    bytes), so mutations reach the unpickler and the tensor checks behind the zip's."""
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as z:
        z.writestr("archive/data.pkl", data_pkl)
        z.writestr("archive/byteorder", b"little")
        z.writestr("archive/data/0", bytes(range(16)))
        z.writestr("archive/data/1", b"\1" * 8)
    return buf.getvalue()


def test_one_input(data):
    # An input that is not a zip is also tried as the pickle of a well-formed archive.
    inputs = [data] if data[:2] == b"PK" else [data, archive(data)]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for blob in inputs:
            try:
                ember.load(io.BytesIO(blob))
            except EXPECTED:
                pass


def main():
    atheris.Setup(sys.argv, test_one_input)
    atheris.Fuzz()


if __name__ == "__main__":
    main()
