"""What ember.load accepts from a PyTorch-format file, against torch.load 2.13: the
weights_only allowlist (the same globals accepted and refused, add_safe_globals /
get_safe_globals / clear_safe_globals / safe_globals), and hostile files (globals and
opcodes off the list, storages and views out of range, missing records, zip bombs,
duplicate names, truncation, deep nesting), each raising the exception type torch raises,
or a clear error where torch has none, never a crash, a hang or a huge allocation."""
import io
import pickle
import struct
import warnings
import zipfile

import numpy as np
import pytest
import torch

import ember


# ---- crafting files byte by byte (shared with tests/fuzz/make_torch_corpus.py) ----------------

def G(module, name):
    return b"c" + f"{module}\n{name}\n".encode()


def U(s):
    b = s.encode()
    return b"X" + struct.pack("<I", len(b)) + b


def I(n):
    if 0 <= n < 256:
        return b"K" + bytes([n])
    if -2 ** 31 <= n < 2 ** 31:
        return b"J" + struct.pack("<i", n)
    e = pickle.encode_long(n)
    return b"\x8a" + bytes([len(e)]) + e


def T(xs):
    return b"(" + b"".join(I(x) for x in xs) + b"t"


def tensor_op(key="0", stype="FloatStorage", numel=4, offset=0, size=(4,), stride=(1,), rg=False):
    """The opcodes torch.save writes for one tensor."""
    return (G("torch._utils", "_rebuild_tensor_v2") + b"((" + U("storage") + G("torch", stype)
            + U(key) + U("cpu") + I(numel) + b"tQ" + I(offset) + T(size) + T(stride)
            + (b"\x88" if rg else b"\x89") + G("collections", "OrderedDict") + b")RtR")


def pkl(body):
    return b"\x80\x02" + body + b"."


def archive(data_pkl, records=None, extra=(), compress=zipfile.ZIP_STORED):
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", compress) as z:
        z.writestr("archive/data.pkl", data_pkl)
        z.writestr("archive/byteorder", b"little")
        for k, v in (records if records is not None else {"0": b"\0" * 16}).items():
            z.writestr(f"archive/data/{k}", v)
        for name, v in extra:
            z.writestr(name, v)
        z.writestr("archive/version", b"3\n")
    return buf.getvalue()


def user_global(obj):
    return G(obj.__module__, obj.__qualname__)


CASES = {
    "offset_out_of_range": archive(pkl(tensor_op(offset=1))),
    "size_out_of_range": archive(pkl(tensor_op(size=(5,)))),
    "stride_out_of_range": archive(pkl(tensor_op(size=(2,), stride=(4,)))),
    "negative_stride": archive(pkl(tensor_op(size=(2,), stride=(-1,)))),
    "negative_size": archive(pkl(tensor_op(size=(-2,), stride=(1,)))),
    "huge_size": archive(pkl(tensor_op(size=(2 ** 63,), stride=(0,)))),
    "missing_storage_record": archive(pkl(tensor_op(key="7"))),
    "storage_size_mismatch": archive(pkl(tensor_op(numel=8))),
    "os_system": archive(pkl(G("os", "system") + b"(" + U("true") + b"tR")),
    "builtins_eval": archive(pkl(G("builtins", "eval") + b"(" + U("1") + b"tR")),
    "functools_partial": archive(pkl(G("functools", "partial") + b"(" + G("builtins", "print") + b"tR")),
    "opcode_inst": archive(pkl(b"(ibuiltins\nlist\n")),
    "opcode_ext1": archive(pkl(b"\x82\x01")),
    "truncated_pickle": archive(pkl(tensor_op())[:-5]),
    "no_data_pkl": archive(b"").replace(b"data.pkl", b"data.pkx"),
    "not_a_zip": b"PK\x03\x04" + b"\0" * 100,
    "requires_grad_on_int": archive(pkl(tensor_op(stype="LongStorage", numel=2, size=(2,), rg=True))),
    "two_dtypes_one_storage": archive(pkl(b"(" + tensor_op() + tensor_op(stype="IntStorage") + b"l")),
    "build_on_a_class": archive(pkl(G("collections", "OrderedDict") + b"N}" + U("x") + I(1) + b"s\x86b")),
    "reduce_on_a_value": archive(pkl(I(3) + b")R")),
    "setitem_on_a_list": archive(pkl(b"]" + I(1) + I(2) + b"s")),
}


def outcome(lib, data, **kw):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            lib.load(io.BytesIO(data), **kw)
            return None
        except Exception as e:  # noqa: BLE001 - the type is what is compared
            return e


@pytest.mark.parametrize("case", list(CASES))
def test_hostile_file_raises_as_torch(case):
    t_err = outcome(torch, CASES[case])
    e_err = outcome(ember, CASES[case])
    assert t_err is not None and e_err is not None, (t_err, e_err)
    assert type(e_err) is type(t_err), (case, repr(t_err)[:300], repr(e_err)[:300])
    assert str(e_err)


def test_messages_name_the_problem():
    def msg(case):
        return str(outcome(ember, CASES[case]))
    assert "offset 1 reaches element 4 of storage '0', which holds 4 elements" in msg("offset_out_of_range")
    assert "stride must be" in msg("negative_stride")
    assert "no record data/7" in msg("missing_storage_record")
    assert "declares 8 elements of 4 bytes but its record holds 16 bytes" in msg("storage_size_mismatch")
    assert "os.system whose module os is blocked" in msg("os_system")
    m = msg("builtins_eval")
    assert "Unsupported global: GLOBAL eval" in m and "ember.serialization.add_safe_globals([eval])" in m
    assert "Weights only load failed" in m and "weights_only` set to `False`" in m
    assert "Unsupported operand 105" in msg("opcode_inst")
    assert "read as both" in msg("two_dtypes_one_storage")
    assert "data.pkl" in msg("no_data_pkl")


def test_dtype_ember_lacks_is_named():
    data = archive(pkl(tensor_op(stype="QInt8Storage", numel=8)))  # quantized: not in ember
    with pytest.raises(RuntimeError, match="torch.QInt8Storage; ember has no tensor type"):
        ember.load(io.BytesIO(data))


def test_zip_bomb_refused_before_inflating():
    body = pkl(b"]" + b"".join(I(0) + b"a" for _ in range(10)))
    data = bytearray(archive(body, compress=zipfile.ZIP_DEFLATED))
    info = zipfile.ZipFile(io.BytesIO(bytes(data))).getinfo("archive/data.pkl")
    # claim 4 GB of output in the central directory and in the local header
    cd = bytes(data).find(b"PK\x01\x02")
    struct.pack_into("<I", data, cd + 24, 0xFFFFFFF0)       # uncompressed size in the directory
    struct.pack_into("<I", data, info.header_offset + 22, 0xFFFFFFF0)
    with pytest.raises(RuntimeError, match="not possible with deflate"):
        ember.load(io.BytesIO(bytes(data)))
    assert outcome(torch, bytes(data)) is not None


def test_deflated_records_load():
    t = {"w": torch.arange(6.0).reshape(2, 3)}
    buf = io.BytesIO()
    torch.save(t, buf)
    src = zipfile.ZipFile(io.BytesIO(buf.getvalue()))
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as z:
        for name in src.namelist():
            z.writestr(name, src.read(name))
    assert ember.load(io.BytesIO(out.getvalue()))["w"].tolist() == [[0, 1, 2], [3, 4, 5]]


def test_corrupt_deflate_stream_raises():  # found by fuzz_torch_format.py
    data = bytearray(archive(pkl(b"]" + I(7) * 50 + b"."), compress=zipfile.ZIP_DEFLATED))
    info = zipfile.ZipFile(io.BytesIO(bytes(data))).getinfo("archive/data.pkl")
    data[info.header_offset + 30 + len("archive/data.pkl")] ^= 0xFF  # the first deflate block
    e_err, t_err = outcome(ember, bytes(data)), outcome(torch, bytes(data))
    assert isinstance(e_err, RuntimeError) and "is corrupt" in str(e_err)
    assert t_err is not None  # (torch inflates what it can and fails in the pickle)


def test_duplicate_record_names_refused():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # zipfile warns about the name it is asked to repeat
        data = archive(pkl(tensor_op()), extra=[("archive/data/0", b"\1" * 16)])
        with pytest.raises(RuntimeError, match="appears twice"):
            ember.load(io.BytesIO(data))


def test_records_outside_the_archive_folder_refused():
    data = archive(pkl(I(1)), extra=[("other/x", b"1")])
    with pytest.raises(RuntimeError, match="outside the archive folder"):
        ember.load(io.BytesIO(data))


def test_every_truncation_raises_cleanly():
    buf = io.BytesIO()
    ember.save({"w": ember.arange(40.0), "n": 3}, buf)
    data = buf.getvalue()
    for n in list(range(0, len(data), max(1, len(data) // 97))) + [len(data) - 1]:
        with pytest.raises((RuntimeError, ValueError, pickle.UnpicklingError, EOFError)):
            ember.load(io.BytesIO(data[:n]))


def test_deep_nesting_and_length_fields_refused_without_allocating():
    deep = archive(pkl(b"(" * 5000 + b"N" + b"t" * 5000))
    with pytest.raises(pickle.UnpicklingError, match="nests deeper"):
        ember.load(io.BytesIO(deep))
    huge_str = archive(pkl(b"X" + struct.pack("<I", 0xFFFFFFF0) + b"abc"))
    with pytest.raises((pickle.UnpicklingError, EOFError, UnicodeDecodeError)):
        ember.load(io.BytesIO(huge_str))
    lists = archive(pkl(b"]" * 3000 + b"a" * 2999))  # nested by APPEND, no marks
    out = ember.load(io.BytesIO(lists))
    assert isinstance(out, list)


def test_big_endian_and_legacy_files_refused(tmp_path):
    data = bytearray(archive(pkl(I(1))))
    data[data.find(b"little"):data.find(b"little") + 6] = b"big\0\0\0"
    with pytest.raises(RuntimeError, match="unknown byte order|big-endian"):
        ember.load(io.BytesIO(bytes(data)))
    buf = io.BytesIO()
    torch.save({"w": torch.ones(2)}, buf, _use_new_zipfile_serialization=False)
    with pytest.raises(RuntimeError, match="legacy"):
        ember.load(io.BytesIO(buf.getvalue()))


# ---- the allowlist against torch's ----------------------------------------------------------

class Point:
    def __init__(self, x=0, y=0):
        self.x, self.y = x, y

    def __eq__(self, other):
        return isinstance(other, Point) and (self.x, self.y) == (other.x, other.y)


def accepted(lib, data):
    return outcome(lib, data) is None


def test_default_allowlist_matches_torch():
    buf = io.BytesIO()
    torch.save({"point": Point(1, 2)}, buf)
    cases = {
        "plain": archive(pkl(b"]" + I(1) + b"a")),
        "set": archive(pkl(G("builtins", "set") + b"(]" + I(1) + b"atR")),
        "counter": archive(pkl(G("collections", "Counter") + b")R")),
        "complex": archive(pkl(G("builtins", "complex") + b"(" + I(1) + I(2) + b"tR")),
        "bytearray": archive(pkl(G("builtins", "bytearray") + b"(" + U("ab") + U("latin1") + b"tR")),
        "dtype": archive(pkl(G("torch", "float64"))),
        "device": archive(pkl(G("torch", "device") + b"(" + U("cpu") + b"tR")),
        "size": archive(pkl(G("torch", "Size") + b"(" + T((2, 3)) + b"tR")),
        "user_class": buf.getvalue(),
        "dict_subclass": archive(pkl(G("collections", "defaultdict") + b")R")),
        "module_class": archive(pkl(G("torch.nn.modules.linear", "Linear"))),
        "getattr": archive(pkl(G("builtins", "getattr"))),
        "subprocess": archive(pkl(G("subprocess", "Popen"))),
        "numpy": archive(pkl(G("numpy.core.multiarray", "_reconstruct"))),
        "parameter_class": archive(pkl(G("torch.nn.parameter", "Parameter"))),
        "rebuild_function": archive(pkl(G("torch._utils", "_rebuild_tensor_v2"))),
        "storage_class": archive(pkl(G("torch", "LongStorage"))),
        "functional_relu": archive(pkl(G("torch.nn.functional", "relu"))),
    }
    for name, data in cases.items():
        assert accepted(ember, data) == accepted(torch, data), name


def test_add_safe_globals_matches_torch():
    buf = io.BytesIO()
    torch.save({"point": Point(1, 2)}, buf)
    data = buf.getvalue()
    assert not accepted(torch, data) and not accepted(ember, data)
    err = outcome(ember, data)
    assert isinstance(err, pickle.UnpicklingError) and f"{__name__}.Point" in str(err)
    try:
        torch.serialization.add_safe_globals([Point])
        ember.serialization.add_safe_globals([Point])
        assert ember.load(io.BytesIO(data)) == torch.load(io.BytesIO(data)) == {"point": Point(1, 2)}
        assert ember.serialization.get_safe_globals() == [Point]
    finally:
        torch.serialization.clear_safe_globals()
        ember.serialization.clear_safe_globals()
    assert ember.serialization.get_safe_globals() == []
    assert not accepted(ember, data)
    with ember.serialization.safe_globals([(Point, f"{__name__}.Point")]):
        assert ember.load(io.BytesIO(data))["point"] == Point(1, 2)
    assert not accepted(ember, data)
    assert ember.load(io.BytesIO(data), weights_only=False)["point"] == Point(1, 2)


def test_allowlisted_class_is_not_a_key_to_others():
    """Allowlisting a class allows building it, not calling its instances or setting its
    class attributes (BUILD on the class itself), as torch."""
    hostile = {
        "call_instance": pkl(user_global(Point) + b")\x81" + b")R"),
        "build_class": pkl(user_global(Point) + b"N}" + U("x") + I(1) + b"s\x86b"),
    }
    with torch.serialization.safe_globals([Point]), ember.serialization.safe_globals([Point]):
        for name, body in hostile.items():
            data = archive(body)
            t_err, e_err = outcome(torch, data), outcome(ember, data)
            assert t_err is not None and type(e_err) is type(t_err), name
    assert not hasattr(Point, "x")


@pytest.mark.parametrize("bad,exc", [([(Point, "a", "b")], ValueError), ([(Point, 3)], TypeError)])
def test_bad_safe_globals_entries_raise_as_torch(bad, exc):
    """torch checks the entries when a file's global is looked up; ember when they are added."""
    torch.serialization.add_safe_globals(bad)
    try:
        with pytest.raises(exc):
            torch.load(io.BytesIO(archive(pkl(user_global(Point)))))
    finally:
        torch.serialization.clear_safe_globals()
    with pytest.raises(exc, match="Expected"):
        ember.serialization.add_safe_globals(bad)
    assert ember.serialization.get_safe_globals() == []


def test_safe_globals_needs_a_list():
    with pytest.raises(TypeError, match="add_safe_globals: expected a list"):
        ember.serialization.add_safe_globals("Point")
    with pytest.raises(TypeError, match="add_safe_globals: expected a list"):
        with ember.serialization.safe_globals("Point"):
            pass
    assert ember.serialization.get_safe_globals() == []


def test_modules_refused_by_default_accepted_when_allowlisted():
    model = ember.nn.Sequential(ember.nn.Linear(2, 3), ember.nn.ReLU())
    buf = io.BytesIO()
    ember.save(model, buf)
    data = buf.getvalue()
    assert not accepted(ember, data) and not accepted(torch, data)
    with ember.serialization.safe_globals([ember.nn.Sequential, ember.nn.Linear, ember.nn.ReLU, set]):
        back = ember.load(io.BytesIO(data))
    np.testing.assert_array_equal(back[0].weight.detach().numpy(), model[0].weight.detach().numpy())
    assert back[0].weight.requires_grad


def test_weights_only_unpickler_does_not_import():
    import sys
    data = archive(pkl(G("xml.dom.minidom", "parseString") + b"(" + U("<a/>") + b"tR"))
    sys.modules.pop("xml.dom.minidom", None)
    assert not accepted(ember, data)
    assert "xml.dom.minidom" not in sys.modules
