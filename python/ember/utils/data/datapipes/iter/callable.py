"""Mapper (`.map`) and Collator (`.collate`)."""
from .._decorator import functional_datapipe
from ..datapipe import IterDataPipe
from ..._collate import default_collate

__all__ = ["Collator", "Mapper"]


def _check_cols(input_col, output_col):
    if input_col is None and output_col is not None:
        raise ValueError("`output_col` must be None when `input_col` is None.")
    if isinstance(output_col, (list, tuple)):
        if len(output_col) > 1:
            raise ValueError("`output_col` must be a single-element list or tuple")
        output_col = output_col[0]
    return output_col


def apply_to_columns(fn, data, input_col, output_col):
    """fn over the whole item (input_col None), over data[input_col], or over the columns of the
    list input_col as arguments; the result replaces the (first) input column, or goes to
    output_col (-1 appends). Tuples come back as tuples; other items are changed in place."""
    if input_col is None:
        return fn(data)
    if isinstance(input_col, (list, tuple)):
        result = fn(*(data[c] for c in input_col))
    else:
        result = fn(data[input_col])
    is_tuple = isinstance(data, tuple)
    if is_tuple:
        data = list(data)
    if output_col is None:
        if isinstance(input_col, (list, tuple)):
            data[input_col[0]] = result
            for c in sorted(input_col[1:], reverse=True):
                del data[c]
        else:
            data[input_col] = result
    elif output_col == -1:
        data.append(result)
    else:
        data[output_col] = result
    return tuple(data) if is_tuple else data


@functional_datapipe("map")
class Mapper(IterDataPipe):
    """fn applied to each item (see apply_to_columns for input_col / output_col)."""

    def __init__(self, datapipe, fn, input_col=None, output_col=None):
        if not callable(fn):
            raise TypeError(f"Mapper: fn must be callable, got {type(fn).__name__}")
        self.datapipe = datapipe
        self.fn = fn
        self.input_col = input_col
        self.output_col = _check_cols(input_col, output_col)

    def __iter__(self):
        for data in self.datapipe:
            yield apply_to_columns(self.fn, data, self.input_col, self.output_col)

    def __len__(self):
        if hasattr(self.datapipe, "__len__"):
            return len(self.datapipe)
        raise TypeError(f"{type(self).__name__} instance doesn't have valid length")


@functional_datapipe("collate")
class Collator(Mapper):
    """Each item (a batch) through collate_fn, or `conversion` (default_collate)."""

    def __init__(self, datapipe, conversion=default_collate, collate_fn=None):
        fn = collate_fn if collate_fn is not None else conversion
        if not callable(fn):
            raise TypeError(f"Collator: conversion must be callable, got {type(fn).__name__}")
        super().__init__(datapipe, fn)
