"""torch.stft / torch.istft (and the Tensor methods): the short-time Fourier transform as a
composition of ember ops: frames gathered by index_select, a window product, ember.fft's
transforms, and for istft the overlap-add by nn.functional.fold with the squared window's
envelope divided out. Gradients flow through every step."""
import warnings


def _ember():
    import ember
    return ember


def _tname(t):
    from .fft import _tname as name
    return f"{name(t.dtype)}[{', '.join(str(s) for s in t.shape)}]"


def _window(E, window, win_length, n_fft, dtype, who):
    """The window padded with zeros on both sides to n_fft (centred), or a rectangle."""
    if window is None:
        window = E.ones(win_length, dtype=dtype)
    elif window.dim() != 1 or window.shape[0] != win_length:
        raise RuntimeError(f"{who}: expected a 1D window tensor of size equal to "
                           f"win_length={win_length}, but got window with size "
                           f"{list(window.shape)}")
    if win_length < n_fft:
        left = (n_fft - win_length) // 2
        window = E.nn.functional.pad(window, [left, n_fft - win_length - left])
    return window


def _frames_index(E, n_frames, n_fft, hop):
    starts = E.arange(n_frames).unsqueeze(-1) * hop
    return (starts + E.arange(n_fft)).reshape(-1)


def stft(input, n_fft, hop_length=None, win_length=None, window=None, center=True,
         pad_mode="reflect", normalized=False, onesided=None, return_complex=None,
         align_to_window=None):
    """Fourier transforms of windowed frames of a 1-D (L) or 2-D (B, L) signal: the result is
    (B?, n_fft // 2 + 1 (onesided) or n_fft, frames).

    >>> ember.stft(ember.ones(8), n_fft=4, return_complex=True).shape
    ember.Size([3, 9])
    """
    E = _ember()
    F = E.nn.functional
    complex_in = input.is_complex() or (window is not None and window.is_complex())
    if return_complex is None and not complex_in:
        raise RuntimeError("stft requires the return_complex parameter be given for real "
                           "inputs, and will further require that return_complex=True in a "
                           "future PyTorch release.")
    if center and align_to_window is not None:
        raise RuntimeError("stft align_to_window should only be set when center = false")
    if input.dim() not in (1, 2):
        raise RuntimeError(f"stft({_tname(input)}): expected a 1D or 2D tensor")
    if center:
        pad = n_fft // 2
        shape = input.shape
        input = F.pad(input.reshape([1] * (3 - input.dim()) + list(shape)), [pad, pad],
                      pad_mode).reshape(list(shape[:-1]) + [shape[-1] + 2 * pad])
    who = f"stft({_tname(input)}, n_fft={n_fft})"
    hop = n_fft // 4 if hop_length is None else hop_length
    win = n_fft if win_length is None else win_length
    x = input if input.dim() == 2 else input.unsqueeze(0)
    length = x.shape[-1]
    if n_fft <= 0 or n_fft > length:
        raise RuntimeError(f"{who}: expected 0 < n_fft < {length}, but got n_fft={n_fft}")
    if hop <= 0:
        raise RuntimeError(f"{who}: expected hop_length > 0, but got hop_length={hop}")
    if win <= 0 or win > n_fft:
        raise RuntimeError(f"{who}: expected 0 < win_length <= n_fft, but got win_length={win}")
    w = _window(E, window, win, n_fft, x.dtype if x.dtype.is_floating_point else
                E.get_default_dtype(), who)
    if onesided is None:
        onesided = not complex_in
    elif onesided and complex_in:
        raise RuntimeError("Cannot have onesided output if window or input is complex")
    if align_to_window and win < n_fft:  # frames start where their window starts
        left = (n_fft - win) // 2
        x = F.pad(x, [left, n_fft - win - left])
        length = x.shape[-1]
    n_frames = 1 + (length - n_fft) // hop
    frames = x.index_select(-1, _frames_index(E, n_frames, n_fft, hop))
    frames = frames.reshape(x.shape[0], n_frames, n_fft) * w
    norm = "ortho" if normalized else "backward"
    spec = (E.fft.rfft if onesided else E.fft.fft)(frames, dim=-1, norm=norm).transpose(-1, -2)
    if input.dim() == 1:
        spec = spec.squeeze(0)
    if not return_complex:
        warnings.warn("stft with return_complex=False is deprecated. In a future pytorch "
                      "release, stft will return complex tensors for all inputs, and "
                      "return_complex=False will raise an error.", UserWarning, stacklevel=2)
        return E.view_as_real(spec)
    return spec


def istft(input, n_fft, hop_length=None, win_length=None, window=None, center=True,
          normalized=False, onesided=None, length=None, return_complex=False):
    """The inverse of stft: inverse transforms of the frames, windowed again, overlap-added and
    divided by the overlap-added squared window.

    >>> x = ember.arange(8.0)
    >>> w = ember.hann_window(4)
    >>> ember.istft(ember.stft(x, 4, window=w, return_complex=True), 4, window=w, length=8)
    tensor([0., 1., 2., 3., 4., 5., 6., 7.])
    """
    E = _ember()
    F = E.nn.functional
    if not input.is_complex():
        raise RuntimeError("istft requires a complex-valued input tensor matching the output "
                           "from stft with return_complex=True.")
    who = f"istft({_tname(input)}, n_fft={n_fft})"
    hop = n_fft // 4 if hop_length is None else hop_length
    win = n_fft if win_length is None else win_length
    if input.dim() not in (2, 3):
        raise RuntimeError(f"{who}: expected a tensor with 2 or 3 dimensions of complex values, "
                           f"got {input.dim()}")
    x = input if input.dim() == 3 else input.unsqueeze(0)
    fft_size, n_frames = x.shape[-2], x.shape[-1]
    if onesided is None:
        onesided = fft_size != n_fft
    if onesided:
        if fft_size != n_fft // 2 + 1:
            raise RuntimeError(f"{who}: expected the frequency dimension (3rd to the last) of the "
                               "input tensor to match n_fft / 2 + 1 when onesided=True, but got "
                               f"{fft_size}")
        if return_complex:
            raise RuntimeError("Cannot have onesided output if window or input is complex")
    elif fft_size != n_fft:
        raise RuntimeError(f"{who}: expected the frequency dimension (3rd to the last) of the "
                           f"input tensor to match n_fft when onesided=False, but got {fft_size}")
    if not 0 < win <= n_fft:
        raise RuntimeError(f"{who}: expected 0 < win_length <= n_fft, but got win_length={win}")
    if hop <= 0:
        raise RuntimeError(f"{who}: expected hop_length > 0, but got hop_length={hop}")
    if n_frames == 0 or x.numel() == 0:
        raise RuntimeError(f"{who}: input tensor cannot be empty.")
    real_dtype = E.float64 if x.dtype == E.complex128 else E.float32
    w = _window(E, window, win, n_fft, real_dtype, who)
    norm = "ortho" if normalized else "backward"
    spec = x.transpose(-1, -2)  # (B, frames, freq)
    if onesided:
        frames = E.fft.irfft(spec, n=n_fft, dim=-1, norm=norm)
    else:
        frames = E.fft.ifft(spec, n=n_fft, dim=-1, norm=norm)
        if not return_complex:
            frames = E.real(frames)
    frames = frames * w
    total = n_fft + hop * (n_frames - 1)
    batch = x.shape[0]

    def overlap_add(f):  # (B, frames, n_fft) reals -> (B, total)
        cols = f.transpose(-1, -2)
        return F.fold(cols, (1, total), (1, n_fft), stride=(1, hop)).reshape(f.shape[0], total)

    if frames.is_complex():
        ri = E.view_as_real(frames)  # (B, frames, n_fft, 2): fold re and im separately
        parts = [overlap_add(ri[..., k]) for k in (0, 1)]
        y = E.view_as_complex(E.stack(parts, -1))
    else:
        y = overlap_add(frames)
    env = overlap_add((w * w).expand(1, n_frames, n_fft))
    start = n_fft // 2 if center else 0
    end = start + length if length is not None else (total - n_fft // 2 if center else total)
    stop = min(end, total)
    y = y[:, start:stop]
    env = env[:, start:stop]
    if env.numel() and bool(env.abs().min() < 1e-11):
        raise RuntimeError(f"{who}: window overlap add min: 1 (the overlap-added squared window "
                           "is below 1e-11 at some output sample and cannot be divided out)")
    y = y / env
    if end > total:
        y = F.pad(y, [0, end - total]) if not y.is_complex() else E.cat(
            [y, E.zeros(batch, end - total, dtype=y.dtype)], -1)
    return y if input.dim() == 3 else y.squeeze(0)


FUNCTIONS = {"stft": stft, "istft": istft}
METHODS = {"stft": stft, "istft": istft}
