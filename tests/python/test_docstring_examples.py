"""Every `>>>` example in the docstring of a public name (the names the API reference lists,
tools/api_pages.py) runs and prints what the docstring says; and the public names that have a
docstring example are counted, so the count only grows."""
import doctest
import os
import sys

import ember

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__)))), "tools"))
import api_pages  # noqa: E402

# 168 objects had an example when this test was written (issue 20 item 4); 1768 on 28 Nov.
MIN_NAMES_WITH_EXAMPLES = 1760


def _examples():
    finder = doctest.DocTestFinder(recurse=False)
    parser = doctest.DocTestParser()
    seen = set()
    for ns in api_pages.NAMESPACES:
        for name, value in api_pages.public_names(ns):
            target = f"{ns}.{name}"
            doc = api_pages._doc(value, target)
            if target in api_pages.DATA_DOCS:  # a data name: its text is in the table
                yield parser.get_doctest(doc, {"ember": ember}, target, "tools/api_pages.py", 0)
                continue
            if not doc or ">>>" not in doc or id(value) in seen:
                continue
            seen.add(id(value))
            yield from (t for t in finder.find(value, f"{ns}.{name}", globs={"ember": ember})
                        if t.examples)


def test_docstring_examples_run():
    tests = list(_examples())
    assert len(tests) >= MIN_NAMES_WITH_EXAMPLES
    failures = []
    for t in tests:
        runner = doctest.DocTestRunner(optionflags=doctest.NORMALIZE_WHITESPACE)
        ember.manual_seed(0)
        runner.run(t, out=failures.append)
    assert not failures, "".join(failures)


def test_bound_names_show_one_text():
    """A name bound in C++ gets its docstring on every overload (python/bindings/docstrings.h);
    an overload registered without it makes nanobind list the overloads one by one."""
    mixed = [f"{ns}.{name}" for ns in api_pages.NAMESPACES
             for name, value in api_pages.public_names(ns)
             if type(value).__name__ in ("nb_func", "nb_method")
             and "Overloaded function." in (value.__doc__ or "")]
    assert not mixed, mixed
