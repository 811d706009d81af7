"""Zero-lag low-pass filtering of markers: a Butterworth filter run forward and backward, as
scipy.signal.butter + filtfilt do it (same coefficients, same edge handling), in numpy alone.

`cutoff` is the -3 dB point of one pass (scipy's `Wn`): the forward-backward result is -6 dB
(gain 0.5) there and has twice the order. Biomechanics texts that want the double pass's -3 dB at
`fc` raise the cutoff by Winter's correction C = (2 ** (1 / 2) - 1) ** (1 / (2 * order)):
pass rate / pi * arctan(tan(pi * fc / rate) / C) (order 2: 0.802; a "4th-order zero-lag" filter
of those texts is order=2 here).
"""

import dataclasses
import warnings

import numpy as np

from .markers import column_runs

_BLOCK = 32  # samples per block of the blocked recursion (see _System.run); benchmarks/bench_filter.py
_GROUP = 16  # blocks per group, one level up (see _System.starts)
_CHUNK = 1 << 22  # values per stretch of a pass (see _System.run): its work arrays stay small


def butterworth(order, cutoff, rate):
    """(b, a): the digital low-pass Butterworth of `order` with its -3 dB point at `cutoff` Hz for
    samples at `rate` Hz, as scipy.signal.butter(order, cutoff, fs=rate) designs it: the analog
    prototype's poles scaled to the prewarped cutoff, then the bilinear transform (zeros at -1)."""
    poles, gain = _design(order, cutoff, rate)
    return gain * np.poly(-np.ones(len(poles))), np.real(np.poly(poles))


def _design(order, cutoff, rate):
    """(digital poles (order,), gain) of butterworth."""
    if isinstance(order, bool) or int(order) != order or order < 1:
        raise ValueError(f"the filter order must be a whole number, 1 or more, not {order}")
    if not 0 < cutoff < rate / 2:
        raise ValueError(f"cutoff {cutoff:g} Hz must lie between 0 and half the rate ({rate / 2:g} Hz)")
    warped = 4 * np.tan(np.pi * cutoff / rate)  # prewarped, for the bilinear transform at fs = 2
    analog = warped * -np.exp(1j * np.pi * np.arange(-order + 1, order, 2) / (2 * order))
    return (4 + analog) / (4 - analog), warped**order * np.real(1 / np.prod(4 - analog))


def padlen(order):
    """The samples `lowpass` adds at each end: 3 * (order + 1), scipy.signal.filtfilt's default."""
    return 3 * (int(order) + 1)


def lowpass(values, cutoff, rate, order=4):
    """`values` (T, ...) filtered along the first axis forward and backward by butterworth(order,
    cutoff, rate), as scipy.signal.filtfilt(b, a, values, axis=0) does it: odd extension of
    padlen(order) samples at each end, each pass started in the filter's steady state for its first
    sample. The same in exact arithmetic; computed as a cascade of sections with unit gain at 0 Hz,
    which keeps low cutoffs at high rates accurate (where the (b, a) form loses digits). T must
    exceed padlen(order). Float64, or the dtype of floating `values`."""
    values, system = np.asarray(values), _System(order, cutoff, rate)
    if len(values) <= system.edge:
        raise ValueError(f"{len(values)} samples: the filter needs more than {system.edge}")
    filtered = system.filtered(values.reshape(len(values), -1))
    return filtered.astype(values.dtype if values.dtype.kind == "f" else float).reshape(values.shape)


class _System:
    """butterworth(order, cutoff, rate) as a state-space system: second-order sections (one
    first-order for an odd order), each in lfilter's transposed direct form II with gain 1 at 0 Hz,
    in series: state' = A state + B x, y = C state + D x. With the matrices of blocks of _BLOCK
    samples (see run) and the state a constant input settles in."""

    def __init__(self, order, cutoff, rate):
        poles = _design(order, cutoff, rate)[0]
        self.edge = padlen(order)
        A, B, C, D = np.zeros((0, 0)), np.zeros(0), np.zeros(0), 1.0
        for pole in poles[poles.imag >= 0]:
            if pole.imag > 0:  # with its conjugate: 1 - 2 Re p z^-1 + |p|^2 z^-2
                a = np.array([-2 * pole.real, abs(pole) ** 2])
                b = np.sum(a, initial=1.0) / 4 * np.array([1.0, 2.0, 1.0])
            else:  # a real pole: 1 - p z^-1
                a = np.array([-pole.real])
                b = (1 + a[0]) / 2 * np.array([1.0, 1.0])
            section = np.eye(len(a), k=1)
            section[:, 0] = -a
            n = len(A)
            A = np.block([[A, np.zeros((n, len(a)))], [np.outer(b[1:] - a * b[0], C), section]])
            B = np.r_[B, (b[1:] - a * b[0]) * D]
            C = np.r_[b[0] * C, 1.0, np.zeros(len(a) - 1)]
            D = b[0] * D
        self.n = n = len(A)
        self.steady = np.linalg.solve(np.eye(n) - A, B)  # scipy.signal.lfilter_zi in these coordinates
        powers = [np.eye(n)]
        for _ in range(_BLOCK):
            powers.append(A @ powers[-1])
        self.observe = np.array([C @ p for p in powers[:_BLOCK]])  # (L, n): row k = C A^k
        h = np.r_[D, self.observe[:-1] @ B]  # the impulse response
        lag = np.arange(_BLOCK)[:, None] - np.arange(_BLOCK)
        self.toeplitz = np.where(lag >= 0, h[np.clip(lag, 0, None)], 0.0)  # (L, L): y = T u from state 0
        self.drive = np.array([powers[_BLOCK - 1 - j] @ B for j in range(_BLOCK)])  # (L, n): row j = A^(L-1-j) B
        # one level up, for row states s' = s M + p with M = (A^L)^T over the blocks of a group
        carry = [np.eye(n)]
        for _ in range(_GROUP):
            carry.append(carry[-1] @ powers[_BLOCK].T)
        self.group_carry = carry[_GROUP]
        self.across = np.concatenate(carry[_GROUP - 1 :: -1])  # (G n, n): block l = M^(G-1-l)
        self.spread = np.concatenate(carry[:_GROUP], axis=1)  # (n, G n): block i = M^i
        lag = np.arange(_GROUP)[:, None] - np.arange(_GROUP)  # i - l
        within = [[carry[d - 1] if d > 0 else np.zeros((n, n)) for d in row] for row in -lag]
        self.within = np.block(within)  # (G n, G n): block (l, i) = M^(i-1-l) for l < i

    def filtered(self, values):
        """The columns of `values` (T, K) filtered forward and backward (see lowpass), as a (T, K)
        float64 view. One work array holds the odd extension, then each pass's output."""
        edge = self.edge
        work = np.empty((values.shape[1], len(values) + 2 * edge))  # (K, T + 2 edge): time contiguous
        work[:, edge:-edge] = values.T
        work[:, :edge] = 2 * work[:, edge : edge + 1] - work[:, 2 * edge : edge : -1]
        work[:, -edge:] = 2 * work[:, -edge - 1 : -edge] - work[:, -edge - 2 : -2 * edge - 2 : -1]
        self.run(work, np.multiply.outer(work[:, 0], self.steady))
        backward = work[:, ::-1]
        self.run(backward, np.multiply.outer(backward[:, 0], self.steady))
        return work[:, edge:-edge].T

    def run(self, x, state):
        """Replace the rows of `x` (K, T) by the system's output from `state` (K, n), a stretch of
        about _CHUNK values at a time. Blocks of _BLOCK samples take their zero-state responses and
        their effect on the state in matrix products over the stretch; see `starts` for the state."""
        columns, count = x.shape
        stretch = max(1, _CHUNK // (columns * _BLOCK * _GROUP)) * _BLOCK * _GROUP
        for first in range(0, count, stretch):
            length = min(stretch, count - first)
            blocks = -(-length // _BLOCK)
            u = np.zeros((columns, blocks * _BLOCK))
            u[:, :length] = x[:, first : first + length]
            u = u.reshape(-1, _BLOCK)  # (K x blocks, L)
            states, state = self.starts((u @ self.drive).reshape(columns, blocks, self.n), state)
            y = u @ self.toeplitz.T
            y += states.reshape(-1, self.n) @ self.observe.T
            x[:, first : first + length] = y.reshape(columns, -1)[:, :length]

    def starts(self, pushed, state):
        """(states (K, blocks, n) at the start of each block, the state after the last) from `state`
        and each block's zero-state effect `pushed` (K, blocks, n). The same again one level up:
        groups of _GROUP blocks in matrix products, only the state from group to group in a loop
        (one pass of it per _BLOCK x _GROUP samples). The state after a last partial group is not
        the block's: `run` ends every stretch but the last on a whole group."""
        columns, blocks, n = pushed.shape
        groups = -(-blocks // _GROUP)
        p = np.zeros((columns, groups * _GROUP, n))
        p[:, :blocks] = pushed
        p = p.reshape(-1, _GROUP * n)
        ends = (p @ self.across).reshape(columns, groups, n)
        firsts = np.empty((columns, groups, n))
        for j in range(groups):
            firsts[:, j] = state
            state = state @ self.group_carry + ends[:, j]
        states = p @ self.within + firsts.reshape(-1, n) @ self.spread
        return states.reshape(columns, -1, n)[:, :blocks], state


def filter_markers(markers, cutoff=6.0, order=4, *, analog_cutoff=None):
    """New Markers whose positions are low-pass filtered without lag: a Butterworth of `order`
    with its single-pass -3 dB point at `cutoff` Hz (see the module's note), forward and backward
    as scipy.signal.filtfilt does (odd extension of 3 * (order + 1) samples at each end).

    Gaps stay gaps: each run of frames where a marker is seen is filtered on its own. A run of no
    more than 3 * (order + 1) frames cannot be extended so and is left as it is (one warning names
    them, by the file's frame numbers). Analog channels are filtered, each whole, at their own rate
    when `analog_cutoff` (Hz) is given, else left as they are (force plates and EMG want different
    cutoffs: 6 Hz would erase EMG). Residuals, camera masks and everything else are kept; the
    positions keep their dtype; `markers` is not changed.
    """
    system = _System(order, cutoff, markers.rate)
    edge = system.edge
    analog = markers.analog
    if analog is not None and analog_cutoff is not None:  # checked before any work
        if len(analog.values) <= edge:
            raise ValueError(f"{len(analog.values)} analog samples: too few to filter (it needs more than {edge})")
        filtered = _System(order, analog_cutoff, analog.rate).filtered(analog.values)
        analog = dataclasses.replace(analog, values=filtered.astype(analog.values.dtype))
    positions = markers.positions.copy()
    short = []
    for (start, stop), columns in _runs(markers.valid).items():
        if stop - start <= edge:
            short += [(m, start, stop) for m in columns]
            continue
        values = positions[start:stop, columns]
        positions[start:stop, columns] = system.filtered(values.reshape(stop - start, -1)).reshape(values.shape)
    if short:
        _warn_short(markers, short, edge)
    return markers.replace(positions=positions, analog=analog)


def _runs(valid):
    """{(start, stop): [markers seen on exactly frames start..stop - 1, between gaps or the ends]}:
    markers seen over the same frames are filtered together."""
    marker, start, stop = column_runs(valid)
    runs = {}
    for m, first, end in zip(marker.tolist(), start.tolist(), stop.tolist()):
        runs.setdefault((first, end), []).append(m)
    return runs


def _warn_short(markers, short, edge):
    shown = ", ".join(
        f"{markers.names[m]} {markers.first_frame + start}-{markers.first_frame + stop - 1}"
        for m, start, stop in sorted(short)[:5]
    )
    more = f" and {len(short) - 5} more" if len(short) > 5 else ""
    warnings.warn(
        f"{len(short)} run{'s' * (len(short) != 1)} of {edge} frames or fewer between gaps left unfiltered "
        f"(too short for the {edge} frames of padding): {shown}{more}",
        stacklevel=3,
    )
