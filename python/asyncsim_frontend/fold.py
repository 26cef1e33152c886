"""Loop recovery and cross-CTA generalisation of instruction streams.

An Item is one asyncsim instruction (or a fixed group of lines) whose integer operands are
*forms*: dicts {'' : constant, loop_var: coefficient}. fold() turns repeated periodic runs of
items whose operands change affinely from one repetition to the next into Loop nodes, smallest
period first, so nested loops appear bottom-up. fit_cta() expresses a value that differs between
CTAs as c0 + c1*(cta / D) + c2*(cta % D) (D = 1 gives an affine function of cta).
"""
from fractions import Fraction

PMAX = 32


class Item:
    __slots__ = ("key", "template", "kinds", "forms", "gaps", "leader")

    def __init__(self, key, template, kinds, values, gap, leader):
        self.key, self.template, self.kinds = key, template, kinds
        self.forms = [{"": v} for v in values]
        self.gaps = [gap] if gap is not None else []
        self.leader = leader

    def sig(self):
        return self.key

    def all_forms(self):
        return self.forms

    def items(self):
        return [self]


class Loop:
    __slots__ = ("var", "trips", "body", "_sig")

    def __init__(self, var, trips, body):
        self.var, self.trips, self.body = var, trips, body
        self._sig = ("L", trips, tuple(n.sig() for n in body))

    def sig(self):
        return self._sig

    def all_forms(self):
        return [f for n in self.body for f in n.all_forms()]

    def items(self):
        return [i for n in self.body for i in n.items()]


def _loop_vars(nodes):
    out = []
    for n in nodes:
        if isinstance(n, Loop):
            out.append(n.var)
            out += _loop_vars(n.body)
    return out


def _repeats(nodes, i, p):
    base = nodes[i:i + p]
    sigs = [n.sig() for n in base]
    forms0 = [f for n in base for f in n.all_forms()]
    n, deltas = 1, None
    while i + (n + 1) * p <= len(nodes):
        cand = nodes[i + n * p:i + (n + 1) * p]
        if [c.sig() for c in cand] != sigs:
            break
        # same structure, so inner loop variables correspond by position
        ren = dict(zip(_loop_vars(cand), _loop_vars(base)))
        forms = [{ren.get(k, k): v for k, v in f.items()} for c in cand for f in c.all_forms()]
        ok = True
        d_now = []
        for f0, f in zip(forms0, forms):
            if set(k for k in f if k) != set(k for k in f0 if k) or any(f[k] != f0[k] for k in f if k):
                ok = False
                break
            d_now.append(f[""] - f0[""])
        if not ok:
            break
        if deltas is None:
            deltas = d_now
        elif any(d != n * dd for d, dd in zip(d_now, deltas)):
            break
        n += 1
    return n, deltas


def fold(nodes, names):
    """Fold periodic runs into Loops; `names` yields fresh loop-variable names."""
    changed = True
    while changed:
        changed = False
        for p in range(1, min(PMAX, len(nodes) // 2) + 1):
            out, i = [], 0
            while i < len(nodes):
                n, deltas = _repeats(nodes, i, p) if i + 2 * p <= len(nodes) else (1, None)
                if n >= 2:
                    body = nodes[i:i + p]
                    var = next(names)
                    for f, d in zip([f for b in body for f in b.all_forms()], deltas):
                        if d:
                            f[var] = d
                    first = [it for b in body for it in b.items()]
                    for r in range(1, n):
                        rest = [it for b in nodes[i + r * p:i + (r + 1) * p] for it in b.items()]
                        for a, b in zip(first, rest):
                            a.gaps.extend(b.gaps)
                    out.append(Loop(var, n, body))
                    i += n * p
                    changed = True
                else:
                    out.append(nodes[i])
                    i += 1
            nodes = out
    return nodes


def shape(nodes):
    return tuple(n.sig() for n in nodes)


def _solve(rows, vals):
    """Integer coefficients x with rows . x == vals for every row, or None."""
    m = len(rows[0])
    basis, picked = [], []
    for r, v in zip(rows, vals):
        vec = [Fraction(x) for x in r] + [Fraction(v)]
        for b, lead in basis:
            if vec[lead]:
                f = vec[lead] / b[lead]
                vec = [x - f * y for x, y in zip(vec, b)]
        lead = next((k for k in range(m) if vec[k]), None)
        if lead is None:
            if vec[m]:
                return None
            continue
        basis.append((vec, lead))
        picked.append((r, v))
        if len(basis) == m:
            break
    # back-substitute on the picked rows
    x = [Fraction(0)] * m
    for vec, lead in reversed(basis):
        s = vec[m] - sum(vec[k] * x[k] for k in range(m) if k != lead)
        x[lead] = s / vec[lead]
    if any(c.denominator != 1 for c in x):
        return None
    x = [int(c) for c in x]
    for r, v in zip(rows, vals):
        if sum(a * b for a, b in zip(r, x)) != v:
            return None
    return x


def fit_cta(ctas, values, divisors):
    """Expression of `cta` giving values[i] for ctas[i], or None."""
    if len(set(values)) == 1:
        return str(values[0])
    for d in [1] + sorted(set(divisors) - {1}):
        if d <= 0:
            continue
        rows = [(1, c // d, c % d) if d > 1 else (1, c, 0) for c in ctas]
        x = _solve(rows, values)
        if x is None:
            continue
        terms = [str(x[0])] if x[0] else []
        if d == 1:
            if x[1]:
                terms.append(f"{x[1]} * cta")
        else:
            if x[1]:
                terms.append(f"{x[1]} * (cta / {d})")
            if x[2]:
                terms.append(f"{x[2]} * (cta % {d})")
        return " + ".join(terms) if terms else "0"
    return None
