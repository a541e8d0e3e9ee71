"""Sphinx configuration of ember's reference site (make docs): the guides of docs/ (Markdown,
through myst-parser) beside the API reference that tools/api_pages.py writes, one page per
namespace, from the docstrings of every public name. Built with warnings as errors."""
project = "ember"
author = "the ember developers"
extensions = ["myst_parser", "sphinx.ext.autodoc"]
source_suffix = {".rst": "restructuredtext", ".md": "markdown"}
exclude_patterns = ["_build"]
html_theme = "alabaster"
html_theme_options = {"nosidebar": False}
autodoc_default_options = {"no-index": True}
autodoc_typehints = "signature"
myst_heading_anchors = 3
# The guides link into the source tree (../src/ops/conv.cpp) and to each other by file name;
# those links are for readers of the repository, not targets of this site.
suppress_warnings = ["myst.xref_missing", "myst.header", "misc.highlighting_failure"]


def _literal(app, what, name, obj, options, lines):
    """ember's docstrings are plain text (PyTorch-style prose, formulas like x**2 and *args),
    not reStructuredText: shown verbatim, so no docstring can break the build."""
    if lines:
        lines[:] = ["::", ""] + ["   " + line for line in lines] + [""]


def setup(app):
    app.connect("autodoc-process-docstring", _literal)
