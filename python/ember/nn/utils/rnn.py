"""torch.nn.utils.rnn: padding variable-length sequences into one tensor and packing them
(PackedSequence) for the recurrent layers, as composites of ember ops (gradients flow
through every function to the data).

Packed layout: the rows of step 0 of every sequence, then the rows of step 1 of the
sequences at least 2 long, ...; batch_sizes[t] = how many sequences are longer than t,
with the sequences sorted by decreasing length (sorted_indices says from which order)."""
from collections.abc import Iterable
from typing import NamedTuple, Optional

from ... import _C
from ..._creation import arange, empty_like, full, tensor
from ..._dtype import float32, float64, int64

__all__ = ["PackedSequence", "invert_permutation", "pack_padded_sequence",
           "pad_packed_sequence", "pad_sequence", "unpad_sequence", "pack_sequence",
           "unpack_sequence"]


class PackedSequence_(NamedTuple):
    data: _C.Tensor
    batch_sizes: _C.Tensor
    sorted_indices: Optional[_C.Tensor]
    unsorted_indices: Optional[_C.Tensor]


class PackedSequence(PackedSequence_):
    """data (sum(batch_sizes), *), batch_sizes (int64, one per time step), sorted_indices /
    unsorted_indices (int64 or None). Made by pack_padded_sequence / pack_sequence."""

    def __new__(cls, data, batch_sizes=None, sorted_indices=None, unsorted_indices=None):
        if unsorted_indices is None:
            unsorted_indices = invert_permutation(sorted_indices)
        if batch_sizes is None:
            if not (isinstance(data, (list, tuple)) and len(data) == 2):
                raise AssertionError("Expected data to be a list or tuple of length 2")
            data, batch_sizes = data
        return super().__new__(cls, data, batch_sizes, sorted_indices, unsorted_indices)

    def to(self, *args, **kwargs):
        """Converts data (dtype/device as Tensor.to); returns self when nothing changes."""
        data = self.data.to(*args, **kwargs)
        if data is self.data:
            return self
        return type(self)(data, self.batch_sizes, self.sorted_indices, self.unsorted_indices)

    def cpu(self):
        return self

    def double(self):
        return self.to(dtype=float64)

    def float(self):
        return self.to(dtype=float32)

    def long(self):
        return self.to(dtype=int64)

    @property
    def is_cuda(self):
        return False

    def is_pinned(self):
        return False


def invert_permutation(permutation):
    """The inverse of a 1-D permutation (None stays None): out[permutation[i]] = i."""
    if permutation is None:
        return None
    n = permutation.numel()
    return empty_like(permutation).scatter_(0, permutation, arange(n, dtype=permutation.dtype))


def _lengths_list(lengths):
    if isinstance(lengths, _C.Tensor):
        if lengths.dim() != 1:
            raise RuntimeError(f"pack_padded_sequence: lengths must be a 1-D tensor, got shape "
                               f"{tuple(lengths.shape)}")
        return [int(v) for v in lengths.tolist()]
    return [int(v) for v in lengths]


def _batch_sizes(lengths):
    """batch_sizes[t] = how many of the (sorted, decreasing) lengths exceed t."""
    return [sum(1 for n in lengths if n > t) for t in range(lengths[0])] if lengths else []


def pack_padded_sequence(input, lengths, batch_first=False, enforce_sorted=True):
    """Packs a padded (T, B, *) (or (B, T, *) when batch_first) batch whose sequence b is
    lengths[b] long. With enforce_sorted=False the sequences may come in any order."""
    lengths = _lengths_list(lengths)
    batch_dim = 0 if batch_first else 1
    if input.dim() < 2:
        raise RuntimeError(f"pack_padded_sequence: input must have at least 2 dimensions "
                           f"(T, B, *), got shape {tuple(input.shape)}")
    if len(lengths) != input.size(batch_dim):
        raise RuntimeError(f"Expected `len(lengths)` to be equal to batch_size, but got "
                           f"{len(lengths)} (batch_size={input.size(batch_dim)})")
    sorted_indices = None
    if not enforce_sorted:
        order = sorted(range(len(lengths)), key=lambda b: -lengths[b])  # stable
        lengths = [lengths[b] for b in order]
        sorted_indices = tensor(order, dtype=int64)
        input = input.index_select(batch_dim, sorted_indices)
    elif any(a < b for a, b in zip(lengths, lengths[1:])):
        raise RuntimeError("`lengths` array must be sorted in decreasing order when "
                           "`enforce_sorted` is True. You can pass `enforce_sorted=False` to "
                           "pack_padded_sequence and/or pack_sequence to sidestep this "
                           "requirement if you do not need ONNX exportability.")
    if lengths and lengths[-1] <= 0:
        raise RuntimeError("Length of all samples has to be greater than 0, but found an "
                           "element in 'lengths' that is <= 0")
    if batch_first:
        input = input.transpose(0, 1)
    if lengths and lengths[0] > input.size(0):
        raise RuntimeError(f"pack_padded_sequence: a length of {lengths[0]} exceeds the "
                           f"padded length {input.size(0)} (input shape {tuple(input.shape)})")
    batch_sizes = _batch_sizes(lengths)
    data = _C.cat([input[t].narrow(0, 0, n) for t, n in enumerate(batch_sizes)])
    return PackedSequence(data, tensor(batch_sizes, dtype=int64), sorted_indices, None)


def pad_packed_sequence(sequence, batch_first=False, padding_value=0.0, total_length=None):
    """The inverse of pack_padded_sequence: (padded (T, B, *) or (B, T, *), lengths int64),
    in the batch order before packing; T = total_length when given."""
    batch_sizes = [int(b) for b in sequence.batch_sizes.tolist()]
    max_len = len(batch_sizes)
    if total_length is not None:
        if total_length < max_len:
            raise ValueError("Expected total_length to be at least the length of the longest "
                             f"sequence in input, but got total_length={total_length} and max "
                             f"sequence length being {max_len}")
        max_len = total_length
    data = sequence.data
    batch, rest = batch_sizes[0], tuple(data.shape[1:])
    steps = []
    for piece in data.split(batch_sizes, 0):
        n = piece.size(0)
        if n < batch:
            piece = _C.cat([piece, full((batch - n,) + rest, padding_value, dtype=data.dtype)])
        steps.append(piece)
    if max_len > len(steps):
        steps += [full((batch,) + rest, padding_value, dtype=data.dtype)] * (max_len - len(steps))
    padded = _C.stack(steps)
    lengths = tensor([sum(1 for n in batch_sizes if n > b) for b in range(batch)], dtype=int64)
    if batch_first:
        padded = padded.transpose(0, 1)
    if sequence.unsorted_indices is not None:
        padded = padded.index_select(0 if batch_first else 1, sequence.unsorted_indices)
        lengths = lengths.index_select(0, sequence.unsorted_indices)
    return padded, lengths


def pad_sequence(sequences, batch_first=False, padding_value=0.0, padding_side="right"):
    """Stacks sequences of shapes (L_i, *) into (T, B, *) (or (B, T, *) when batch_first),
    T = max L_i, filling the missing steps with padding_value on padding_side."""
    if isinstance(sequences, _C.Tensor):
        sequences = sequences.unbind(0)
    if not isinstance(sequences, Iterable):
        raise RuntimeError("pad_sequence: Expected iterable for input sequences, but got arg "
                           f"of type: {type(sequences)}")
    sequences = tuple(sequences)
    if padding_side not in ("left", "right"):
        raise RuntimeError(f"Expected padding_side to be one of left or right, but got "
                         f"{padding_side}.")
    if not sequences:
        raise RuntimeError("received an empty list of sequences")
    rest = tuple(sequences[0].shape[1:])
    for s in sequences:
        if s.dim() == 0 or tuple(s.shape[1:]) != rest:
            raise RuntimeError(f"pad_sequence: every sequence must have shape (L, "
                               f"{', '.join(map(str, rest))}); got {tuple(s.shape)}")
    max_len = max(s.size(0) for s in sequences)
    padded = []
    for s in sequences:
        missing = max_len - s.size(0)
        if missing:
            pad = full((missing,) + rest, padding_value, dtype=s.dtype)
            s = _C.cat([s, pad] if padding_side == "right" else [pad, s])
        padded.append(s)
    return _C.stack(padded, 0 if batch_first else 1)


def unpad_sequence(padded_sequences, lengths, batch_first=False):
    """The list of sequences padded_sequences[:lengths[b], b] (batch_first: [b, :lengths[b]])."""
    if not batch_first:
        padded_sequences = padded_sequences.transpose(0, 1)
    lengths = _lengths_list(lengths)
    return [seq.narrow(0, 0, n) for seq, n in zip(padded_sequences.unbind(0), lengths)]


def pack_sequence(sequences, enforce_sorted=True):
    """pack_padded_sequence(pad_sequence(sequences), their lengths)."""
    lengths = [v.size(0) for v in sequences]
    return pack_padded_sequence(pad_sequence(sequences), lengths, enforce_sorted=enforce_sorted)


def unpack_sequence(packed_sequences):
    """The list of sequences a PackedSequence holds, in their original order."""
    padded, lengths = pad_packed_sequence(packed_sequences, batch_first=True)
    return unpad_sequence(padded, lengths, batch_first=True)
