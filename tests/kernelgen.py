"""Random affine kernels in the kernel language, for property tests.

A kernel copies an interface input into an on-chip buffer, then a pipelined loop nest
reads the buffer at ``coef_d * i_d + offset_d`` for a random set of accesses (optionally
with the innermost loop unrolled) and writes an interface output.  Sizes are chosen so
every index stays in bounds: dimension d has size ``coef_d * (trips_d - 1) * step_d +
max offset + 1``.
"""

from __future__ import annotations

from dataclasses import dataclass

from hypothesis import strategies as st

ITERATORS = ("i", "j", "k")


@dataclass(frozen=True)
class RandomKernel:
    rank: int
    trips: tuple[int, ...]
    steps: tuple[int, ...]
    coefs: tuple[int, ...]
    offsets: tuple[tuple[int, ...], ...]
    unroll: int
    ii: int
    storage: str

    @property
    def shape(self) -> tuple[int, ...]:
        return tuple(c * (t - 1) * s + max(o[d] for o in self.offsets) + 1
                     for d, (c, t, s) in enumerate(zip(self.coefs, self.trips, self.steps)))

    def source(self, name: str = "rk") -> str:
        dims = "".join(f"[{n}]" for n in self.shape)
        out_dims = "".join(f"[{t}]" for t in self.trips)
        lines = [f"// random affine kernel: {len(self.offsets)} reads of a {self.rank}-D buffer",
                 f"void {name}(int in{dims}, int out{out_dims}) {{",
                 f"  int buf{dims};",
                 f"#pragma HLS bind_storage variable=buf type={self.storage}"]
        lines += self._copy_in()
        lines += self._compute()
        lines.append("}")
        return "\n".join(lines) + "\n"

    def _copy_in(self) -> list[str]:
        out, indent = [], "  "
        for d, n in enumerate(self.shape):
            out.append(f"{indent}for (int c{d} = 0; c{d} < {n}; c{d}++) {{")
            indent += "  "
            if d == self.rank - 1:
                out.append("#pragma HLS pipeline II=1")
        idx = "".join(f"[c{d}]" for d in range(self.rank))
        out.append(f"{indent}buf{idx} = in{idx};")
        out += ["  " * (self.rank - d) + "}" for d in range(self.rank)]
        return out

    def _compute(self) -> list[str]:
        out, indent = [], "  "
        for d in range(self.rank):
            v, t, s = ITERATORS[d], self.trips[d], self.steps[d]
            out.append(f"{indent}for (int {v} = 0; {v} < {t * s}; {v} += {s}) {{")
            indent += "  "
            if d == self.rank - 1:
                out.append(f"#pragma HLS pipeline II={self.ii}")
                if self.unroll > 1:
                    out.append(f"#pragma HLS unroll factor={self.unroll}")
        terms = []
        for o in self.offsets:
            idx = "".join(f"[{c}*{ITERATORS[d]} + {o[d]}]" for d, c in enumerate(self.coefs))
            terms.append(f"buf{idx}")
        out_idx = "".join(f"[{ITERATORS[d]} / {self.steps[d]}]" for d in range(self.rank))
        out.append(f"{indent}out{out_idx} = {' + '.join(terms)};")
        out += ["  " * (self.rank - d) + "}" for d in range(self.rank)]
        return out


@st.composite
def random_kernels(draw, max_accesses: int = 12) -> RandomKernel:
    rank = draw(st.integers(1, 3))
    trips = tuple(draw(st.integers(2, 6 if rank > 1 else 24)) for _ in range(rank))
    steps = tuple(draw(st.integers(1, 2)) for _ in range(rank))
    coefs = tuple(draw(st.integers(1, 3)) for _ in range(rank))
    count = draw(st.integers(1, max_accesses))
    offsets = tuple(draw(st.lists(st.tuples(*[st.integers(0, 4)] * rank), min_size=count,
                                  max_size=count)))
    unroll = draw(st.sampled_from([1, 1, 2, 3, 4]))
    return RandomKernel(rank, trips, steps, coefs, offsets, unroll,
                        draw(st.sampled_from([1, 1, 2])),
                        draw(st.sampled_from(["ram_1p", "ram_t2p"])))
