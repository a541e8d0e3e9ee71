"""Named result tuples, as torch.return_types: `t.max(dim)` returns a `max(values, indices)`
that also unpacks as a plain tuple (`values, indices = t.max(1)`)."""
from collections import namedtuple


def _result(name):
    cls = namedtuple(name, ["values", "indices"])
    cls.__repr__ = lambda self: (f"ember.return_types.{name}(\nvalues={self.values!r},\n"
                                 f"indices={self.indices!r})")
    return cls


max = _result("max")  # noqa: A001  (PyTorch's name)
min = _result("min")  # noqa: A001
sort = _result("sort")
topk = _result("topk")



def _fields(name, fields):
    """A torch.return_types tuple with other field names (the linalg results)."""
    cls = namedtuple(name, fields)
    cls.__repr__ = lambda self: (f"ember.return_types.{name}(\n" + ",\n".join(
        f"{f}={v!r}" for f, v in zip(fields, self)) + ")")
    return cls


linalg_inv_ex = _fields("linalg_inv_ex", ["inverse", "info"])
linalg_slogdet = _fields("linalg_slogdet", ["sign", "logabsdet"])
slogdet = _fields("slogdet", ["sign", "logabsdet"])
linalg_cholesky_ex = _fields("linalg_cholesky_ex", ["L", "info"])
triangular_solve = _fields("triangular_solve", ["solution", "cloned_coefficient"])
linalg_eigh = _fields("linalg_eigh", ["eigenvalues", "eigenvectors"])
linalg_eig = _fields("linalg_eig", ["eigenvalues", "eigenvectors"])
linalg_svd = _fields("linalg_svd", ["U", "S", "Vh"])
svd = _fields("svd", ["U", "S", "V"])
linalg_qr = _fields("linalg_qr", ["Q", "R"])
qr = _fields("qr", ["Q", "R"])
linalg_lu_factor_ex = _fields("linalg_lu_factor_ex", ["LU", "pivots", "info"])
linalg_lu_factor = _fields("linalg_lu_factor", ["LU", "pivots"])
linalg_lu = _fields("linalg_lu", ["P", "L", "U"])
lu_unpack = _fields("lu_unpack", ["P", "L", "U"])
geqrf = _fields("geqrf", ["a", "tau"])
linalg_ldl_factor_ex = _fields("linalg_ldl_factor_ex", ["LD", "pivots", "info"])
linalg_ldl_factor = _fields("linalg_ldl_factor", ["LD", "pivots"])
linalg_solve_ex = _fields("linalg_solve_ex", ["result", "info"])
linalg_lstsq = _fields("linalg_lstsq", ["solution", "residuals", "rank", "singular_values"])
frexp = _fields("frexp", ["mantissa", "exponent"])
histogram = _fields("histogram", ["hist", "bin_edges"])
histogramdd = _fields("histogramdd", ["hist", "bin_edges"])

__all__ = ["max", "min", "sort", "topk", "linalg_inv_ex", "linalg_slogdet", "slogdet",
           "linalg_cholesky_ex", "triangular_solve", "linalg_eigh", "linalg_eig", "linalg_svd", "svd", "linalg_qr", "qr",
           "linalg_lstsq", "linalg_lu_factor_ex", "linalg_lu_factor", "linalg_lu", "lu_unpack",
           "linalg_solve_ex", "geqrf", "linalg_ldl_factor_ex", "linalg_ldl_factor",
           "frexp", "histogram", "histogramdd"]
