"""Marker gap filling: `fill_gaps` fills the frames where a marker was not seen, by a cubic through
the samples around the gap ("spline"), by the markers that move rigidly with it ("rigid"), by the
shape of a donor marker's trajectory ("pattern"), or per gap by whichever of these fills best the
seen frames next to it ("auto"). Vectorised over gaps and frames; filled samples get residual 0
(C3D's "interpolated"). See docs/markers.md, "Gap filling"."""

import collections
import dataclasses

import numpy as np

from .markers import column_runs
from .rotations import nearest_rotation

MAX_GAP = 0.25  # seconds: the longest gap fill_gaps fills by default
METHODS = ("auto", "rigid", "pattern", "spline")
RIGID_DONORS = 3, 4  # markers a rigid fill fits: at least, at most (weighted: the most rigid count most)
SPLINE_WINDOW = 0, 2  # samples each side of a gap the spline fits: this fraction of its length + this many
SIGNAL_WINDOW = 0.25, 5  # the same for the rigid and pattern fills (their signal barely moves)
SCORE_FRAMES = 1000  # frames sampled (evenly) to score how closely pairs of markers move
CHUNK = 1 << 17  # window samples per batch of gaps (bounds memory: x RIGID_DONORS x 3 doubles)


@dataclasses.dataclass
class Gap:
    """Frames `start` to `stop` (indices into the take, stop exclusive) where marker `marker`
    (`name`) was not seen; `method`: what filled it, or was asked to; `reason`: why it was left."""

    marker: int
    name: str
    start: int
    stop: int
    method: str
    reason: str = ""

    @property
    def frames(self):
        return self.stop - self.start


@dataclasses.dataclass
class FillReport:
    """What fill_gaps did: the gaps it filled and those it left (each with its reason)."""

    filled: list[Gap]
    unfilled: list[Gap]

    @property
    def frames_filled(self):
        """Samples filled, over all markers."""
        return sum(gap.frames for gap in self.filled)

    def __str__(self):
        if not self.filled and not self.unfilled:
            return "no gaps"
        text = f"{len(self.filled)} gap{'' if len(self.filled) == 1 else 's'} filled"
        if self.filled:
            text += f" ({_tally([gap.method for gap in self.filled])})"
        if self.unfilled:
            reasons = [gap.reason for gap in self.unfilled]
            text += f", {len(reasons)} left: {reasons[0] if len(set(reasons)) == 1 else _tally(reasons)}"
        return text


def fill_gaps(markers, method="auto", max_gap=MAX_GAP, donors=None):
    """A new Markers with the gaps of `markers` filled, and a FillReport. `markers` is not changed;
    seen samples keep their values and residuals; filled ones get residual 0 (where the take has
    residuals: C3D's "interpolated") and camera mask 0.

    method   "spline": per coordinate, the cubic through the last two samples before the gap and
             the first two after it (SPLINE_WINDOW); for short gaps; needs both sides.
             "rigid": the 3 or 4 (RIGID_DONORS) markers seen throughout the gap whose distance to
             the gapped one varies least while both are seen; each frame, their best rigid fit
             (Kabsch, each weighted by 1 / that variance) to their places next to the gap carries
             the marker's place on that body, bridged from one end of the gap to the other (held
             from the one end at the take's start or end).
             "pattern": the gap follows the trajectory of the marker whose offset to it varies
             least (seen throughout the gap), the offset bridged from end to end.
             "auto" (default): per gap, whichever of these fills best two gaps of the same length
             cut into the seen frames on either side of it; where that cannot be tried, rigid,
             else pattern, else spline, as the gap allows.
             Rigid, pattern and auto fill in two passes: a gap whose best donors were unseen in
             part of it is filled again with the first pass's fills as donors.
    max_gap  seconds: longer gaps are left; default MAX_GAP (0.25 s); None: gaps of any length.
    donors   the markers rigid and pattern fills may draw on: {marker name: [donor names]} (markers
             not named draw on all), or a list of names for every marker; default all.
    """
    if method not in METHODS:
        raise ValueError(f"method must be one of {', '.join(METHODS)}, not {method!r}")
    if max_gap is not None and not max_gap >= 0:
        raise ValueError(f"max_gap must be a duration in seconds (>= 0) or None, not {max_gap!r}")
    allowed = _allowed(markers, donors)
    positions = markers.positions.astype(np.float64)
    seen = ~np.isnan(positions).any(axis=2)
    marker, start, stop = column_runs(~seen)  # the gaps, by marker then frame
    reason = np.full(len(marker), "", dtype=object)
    reason[~seen.any(axis=0)[marker]] = "never seen"
    if max_gap is not None:
        reason[(reason == "") & (stop - start > max_gap * markers.rate * (1 + 1e-9))] = (
            f"longer than max_gap {max_gap:g} s"
        )
    used = np.full(len(marker), "", dtype=object)
    todo = np.flatnonzero(reason == "")
    if len(todo):
        filler = _Filler(positions, seen, _pair_scores(positions, seen, np.unique(marker[todo]), allowed))
        used[todo] = filler.fill(method, marker[todo], start[todo], stop[todo])
        if method != "spline":  # again, with the fills as donors, where that gives other donors
            filler.usable = ~np.isnan(positions).any(axis=2)
            used[todo] = filler.fill(method, marker[todo], start[todo], stop[todo], used[todo])
        left = todo[used[todo] == ""]
        reason[left] = _why(method, start[left])
    filled = seen != ~np.isnan(positions).any(axis=2)
    residuals = markers.residuals
    if residuals is not None:
        residuals = np.where(filled, 0, residuals).astype(residuals.dtype)
    gaps = [
        Gap(int(m), markers.names[m], int(a), int(b), u or method, r)
        for m, a, b, u, r in zip(marker, start, stop, used, reason, strict=True)
    ]
    masks = markers.camera_masks
    result = markers.replace(
        positions=positions.astype(markers.positions.dtype),
        residuals=residuals,
        camera_masks=None if masks is None else np.where(filled, 0, masks).astype(np.uint8),
    )
    return result, FillReport([g for g in gaps if not g.reason], [g for g in gaps if g.reason])


class _Filler:
    """Fills batches of gaps of one take in `out` (float64, NaN where not seen), drawing on the
    markers where `usable` (where seen; for a second pass, where seen or filled)."""

    def __init__(self, out, seen, scores):
        self.out = out
        self.seen = self.usable = seen
        self.seen_before = self.usable_before
        self.frames = len(seen)
        self.scores = scores
        self.order = np.argsort(scores, axis=2, kind="stable")  # each marker's donors, best first

    @property
    def usable(self):
        return self._usable

    @usable.setter
    def usable(self, usable):
        self._usable = usable
        self.usable_before = np.concatenate(
            [np.zeros((1, usable.shape[1]), np.int32), np.cumsum(usable, axis=0, dtype=np.int32)]
        )

    def fill(self, method, marker, start, stop, previous=None):
        """Fill the gaps (marker, start, stop) by `method`: (G,) the method that filled each ("" if
        none). With the `previous` pass's methods: only the gaps whose donors are not those of the
        take as seen, the others keep theirs."""
        used = np.full(len(marker), "", dtype=object) if previous is None else previous.copy()
        order = np.argsort(stop - start, kind="stable")  # similar lengths batch with little padding
        batch = np.cumsum(3 * (stop - start)[order] + 20) // CHUNK
        for chunk in np.split(order, np.flatnonzero(np.diff(batch)) + 1):
            donors = self._donors(marker[chunk], start[chunk], stop[chunk], self.usable_before)
            if previous is not None:
                first = self._donors(marker[chunk], start[chunk], stop[chunk], self.seen_before)
                again = (donors[0] != first[0]).any(axis=1) | (donors[1] != first[1]).any(axis=1)
                chunk, donors = chunk[again], [d[again] for d in donors]
            if len(chunk):
                used[chunk] = self._batch(method, marker[chunk], start[chunk], stop[chunk], *donors)
        return used

    def _batch(self, method, marker, start, stop, rigid, pattern):
        donors = {"rigid": rigid, "pattern": pattern, "spline": pattern}  # (the spline draws on none)
        possible = {
            "rigid": rigid[:, RIGID_DONORS[0] - 1] >= 0,
            "pattern": pattern[:, 0] >= 0,
            "spline": (start > 0) & (stop < self.frames),
        }
        if method == "auto":
            choice = self._choose(possible, donors, marker, start, stop)
        else:
            choice = np.where(possible[method], method, "")
        for name in possible:
            chosen = np.flatnonzero(choice == name)
            if len(chosen):
                index, gap, values = self._estimate(
                    name, marker[chosen], start[chosen], stop[chosen], donors[name][chosen]
                )
                rows, columns = np.nonzero(gap)
                self.out[index[rows, columns], marker[chosen][rows]] = values[rows, columns]
        return choice

    def _choose(self, possible, donors, marker, start, stop):
        """Per gap, the possible method with the smallest error over gaps of its length cut into the
        seen frames on either side of it (beyond the windows the fills look at); where the first
        possible of rigid, pattern, spline cannot be tried so, that one; "" where none is possible."""
        length = stop - start
        margin = length // 4 + SIGNAL_WINDOW[1] + 1
        errors = np.full((len(possible), len(marker)), np.inf)
        for row, (name, ok) in enumerate(possible.items()):
            squares, counts = np.zeros(len(marker)), np.zeros(len(marker))
            for first in (start - margin - length, stop + margin):
                trial = np.flatnonzero(ok & (first >= 0) & (first + length <= self.frames))
                if not len(trial):
                    continue
                index, gap, values = self._estimate(
                    name, marker[trial], first[trial], first[trial] + length[trial], donors[name][trial]
                )
                miss = np.where(gap[..., None], values - self.out[index, marker[trial, None]], np.nan)
                miss[~self.seen[index, marker[trial, None]]] = np.nan
                squares[trial] += np.nansum(miss**2, axis=(1, 2))
                counts[trial] += (~np.isnan(miss[..., 0])).sum(axis=1)
            errors[row, ok] = squares[ok] / np.where(counts[ok] > 0, counts[ok], np.nan)
        columns = np.arange(len(marker))
        preferred = np.argmax(~np.isinf(errors), axis=0)  # rigid, else pattern, else spline
        pick = np.where(
            np.isnan(errors[preferred, columns]), preferred, np.argmin(np.nan_to_num(errors, nan=np.inf), axis=0)
        )
        return np.where(np.isinf(errors[pick, columns]), "", np.array(list(possible), dtype=object)[pick])

    def _donors(self, marker, start, stop, before):
        """Each gap's best donors, from the frame before it to the frame after in markers counted
        in `before` (a running count of usable frames): (G, RIGID_DONORS[1]) by rigidity, (G, 1)
        by likeness; -1 past the last."""
        low, high = np.maximum(start - 1, 0), np.minimum(stop + 1, self.frames)
        throughout = before[high] - before[low] == (high - low)[:, None]
        picks = []
        for score, most in ((0, RIGID_DONORS[1]), (1, 1)):
            candidates = self.order[score, marker]  # (G, M)
            usable = np.take_along_axis(throughout, candidates, axis=1)
            usable &= np.isfinite(np.take_along_axis(self.scores[score, marker], candidates, axis=1))
            first = np.argsort(~usable, axis=1, kind="stable")[:, :most]
            picked = np.full((len(marker), most), -1)
            picked[:, : first.shape[1]] = np.where(
                np.take_along_axis(usable, first, axis=1), np.take_along_axis(candidates, first, axis=1), -1
            )
            picks.append(picked)
        return picks

    def _estimate(self, name, marker, start, stop, donors):
        """Fills by `name` of gaps (marker, start, stop), `out` unchanged: index (G, W) the frames of
        each gap's window, gap (G, W) where the gap is in it, values (G, W, 3) (NaN where a donor is
        not seen)."""
        length = stop - start
        shape = SPLINE_WINDOW if name == "spline" else SIGNAL_WINDOW
        window = np.ceil(shape[0] * length).astype(np.int64) + shape[1]
        span = length + 2 * window
        offset = np.arange(span.max())
        index = (start - window)[:, None] + offset
        known = (offset < span[:, None]) & (index >= 0) & (index < self.frames)
        index = np.clip(index, 0, self.frames - 1)
        gap = (offset >= window[:, None]) & (offset < (window + length)[:, None])
        known &= ~gap & self.seen[index, marker[:, None]]
        target = self._take(index, marker[:, None], known)
        if name == "spline":
            return index, gap, _bridge(target, known, window, length, hold=False)
        if name == "pattern":
            ok = self.usable[index, donors[:, :1]]
            donor = self._take(index, donors[:, :1], ok)
            values = _bridge(target - donor, known & ok, window, length) + donor
        else:
            anchor = np.where(start > 0, window - 1, window + length)  # a frame next to the gap
            rotation, centre, ok = self._rigid_fit(index, marker, donors, anchor, known | gap)
            local = np.einsum("gwji,gwj->gwi", rotation, target - centre)
            values = np.einsum("gwij,gwj->gwi", rotation, _bridge(local, known & ok, window, length)) + centre
        values[~ok] = np.nan
        return index, gap, values

    def _take(self, index, columns, where):
        """out[index, columns], 0 but `where`."""
        return np.where(where[..., None], self.out[index, columns], 0.0)

    def _rigid_fit(self, index, marker, donors, anchor, needed):
        """Per gap and window frame, the rotation (G, W, 3, 3) and centre (G, W, 3) of the donors'
        weighted best rigid fit (Kabsch) to their places at the anchor frame (where `needed`, else
        none), and where all of them are usable (G, W)."""
        ok = (self.usable[index[:, :, None], donors[:, None]] | (donors[:, None] < 0)).all(axis=2)
        body = self._take(index[:, :, None], donors[:, None], ok[..., None] & (donors[:, None] >= 0))  # (G, W, K, 3)
        reference = body[np.arange(len(index)), anchor]  # (G, K, 3)
        spread = np.where(donors >= 0, np.take_along_axis(self.scores[0, marker], donors, axis=1), np.inf)
        weights = 1 / (spread**2 + 1e-12 * (1 + np.max(spread, axis=1, initial=0, where=donors >= 0)[:, None] ** 2))
        weights /= weights.sum(axis=1, keepdims=True)
        centre = np.einsum("gwki,gk->gwi", body, weights)
        at_rest = reference - np.einsum("gki,gk->gi", reference, weights)[:, None]
        needed &= ok
        rows = np.nonzero(needed)[0]
        covariance = np.einsum("nki,nk,nkj->nij", body[needed] - centre[needed][:, None], weights[rows], at_rest[rows])
        rotation = np.broadcast_to(np.eye(3), (*index.shape, 3, 3)).copy()
        rotation[needed] = nearest_rotation(covariance)  # Kabsch: a rotation, not a reflection
        return rotation, centre, ok & ok[np.arange(len(ok)), anchor][:, None]  # no fit without the anchor


def _bridge(signal, known, window, length, hold=True):
    """Values of a signal (G, W, 3) over each gap (window positions `window` to `window + length`)
    from the samples `known` around it: the cubic through the samples next to the gap (the line
    between them, bent by the cubic term zero at both that best fits the others by least squares);
    where one side has no sample, the other's held (`hold`, else NaN)."""
    rows = np.arange(len(signal))
    before, after = window - 1, window + length
    low = (before >= 0) & known[rows, np.maximum(before, 0)]
    high = (after < signal.shape[1]) & known[rows, np.minimum(after, signal.shape[1] - 1)]
    a = signal[rows, np.maximum(before, 0)]
    b = signal[rows, np.minimum(after, signal.shape[1] - 1)]
    a, b = np.where(low[:, None], a, b), np.where(high[:, None], b, a)
    u = (2 * np.arange(signal.shape[1]) - (before + after)[:, None]) / (after - before)[:, None]  # -1 and 1 at the ends
    line = a[:, None] * (1 - u[..., None]) / 2 + b[:, None] * (1 + u[..., None]) / 2
    bend = (u * u - 1)[..., None] * np.stack([np.ones_like(u), u], axis=-1)  # (G, W, 2): zero at both ends
    fit = np.where((known & (low & high)[:, None] & (np.abs(u) > 1))[..., None], bend, 0.0)
    normal = np.einsum("gwi,gwj->gij", fit, fit)
    normal += 1e-12 * (1 + np.trace(normal, axis1=1, axis2=2))[:, None, None] * np.eye(2)  # no samples: no bend
    coefficients = np.linalg.solve(
        normal, np.einsum("gwi,gwj->gij", fit, np.where(known[..., None], signal - line, 0.0))
    )
    values = line + bend @ coefficients
    values[~((low | high) if hold else (low & high))] = np.nan
    return values


def _pair_scores(positions, seen, rows, allowed):
    """(2, M, M) how closely each marker of `rows` moves with each other marker, over the frames
    both are seen (at most SCORE_FRAMES of them, evenly spaced): [0] the standard deviation of their
    distance (how rigidly), [1] the root mean square deviation of their offset from its mean (how
    alike). inf for other rows, a marker with itself, pairs seen together in fewer than 3 of those
    frames and pairs not `allowed`."""
    count = positions.shape[1]
    stride = -(-len(positions) // SCORE_FRAMES)
    sample, ok = np.where(seen[::stride, :, None], positions[::stride], 0.0), seen[::stride]
    frames, distances, squares = np.zeros((3, len(rows), count))
    offsets = np.zeros((len(rows), count, 3))
    step = max(1, CHUNK // (len(rows) * count))
    for first in range(0, len(sample), step):
        points, here = sample[first : first + step], ok[first : first + step]
        both = here[:, rows, None] & here[:, None, :]
        offset = (points[:, rows, None] - points[:, None, :]) * both[..., None]
        squared = np.einsum("fabi,fabi->fab", offset, offset)
        frames += both.sum(axis=0)
        distances += np.sqrt(squared).sum(axis=0)
        squares += squared.sum(axis=0)
        offsets += offset.sum(axis=0)
    n = np.maximum(frames, 1)
    mean_offset = offsets / n[..., None]
    spread = np.full((2, count, count), np.inf)
    spread[0, rows] = np.sqrt(np.maximum(squares / n - (distances / n) ** 2, 0.0))
    spread[1, rows] = np.sqrt(np.maximum(squares / n - np.einsum("abi,abi->ab", mean_offset, mean_offset), 0.0))
    spread[:, rows] = np.where(frames < 3, np.inf, spread[:, rows])
    spread[:, ~allowed | np.eye(count, dtype=bool)] = np.inf
    return spread


def _allowed(markers, donors):
    """(M, M) bool: marker i may draw on marker j (`donors` as fill_gaps takes it)."""
    count = markers.marker_count
    if donors is None:
        return np.ones((count, count), bool)
    if isinstance(donors, dict):
        allowed = np.ones((count, count), bool)
        for name, names in donors.items():
            rows = _indices(markers, [name])
            allowed[rows] = False
            allowed[np.ix_(rows, _indices(markers, names))] = True
        return allowed
    allowed = np.zeros((count, count), bool)
    allowed[:, _indices(markers, donors)] = True
    return allowed


def _indices(markers, names):
    """Every index of a marker named in `names` (labels need not be unique); KeyError for a name no
    marker has."""
    if isinstance(names, str):
        raise TypeError(f"donors must be a list of marker names, not the string {names!r}")
    wanted = set(names)
    for name in wanted:
        markers.index(name)
    return [i for i, name in enumerate(markers.names) if name in wanted]


def _why(method, start):
    """Why `method` left gaps that were short enough (those starting at `start`)."""
    side = np.where(start == 0, "no sample before", "no sample after")
    if method == "spline":
        return [f"{s}: spline needs both ends" for s in side]
    if method == "rigid":
        return [f"fewer than {RIGID_DONORS[0]} donors seen throughout"] * len(start)
    if method == "pattern":
        return ["no donor seen throughout"] * len(start)
    return [f"no donor seen throughout and {s}" for s in side]


def _tally(words):
    """'8 rigid, 3 pattern': how often each word occurs, commonest first."""
    return ", ".join(f"{n} {word}" for word, n in collections.Counter(words).most_common())
