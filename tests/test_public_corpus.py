"""The public-kernel corpus (tests/data/public): the manifest keeps its promises (sources,
licences, byte-identical files), and every kernel, unedited, parses with libclang, its top
function found and its recorded constructs the ones the AST shows; with ARRAYPART_CORPUS=1
it also passes g++ -fsyntax-only with the stand-in Vitis headers."""

import hashlib
import os
from concurrent.futures import ProcessPoolExecutor

import pytest

from conftest import HAVE_GXX, bench_module, needs_gxx

corpus = bench_module("corpus")

MANIFEST = corpus.load_manifest()
PERMISSIVE = {"BSD-2-Clause", "BSD-3-Clause", "MIT", "Apache-2.0"}
MIN_KERNELS = 45
MIN_SOURCES = 4


def test_manifest_counts_sources_and_licences():
    kernels = MANIFEST.kernels
    assert len(kernels) >= MIN_KERNELS
    assert len({k.source for k in kernels}) >= MIN_SOURCES
    assert len({k.id for k in kernels}) == len(kernels)
    assert {s.license for s in MANIFEST.sources.values()} <= PERMISSIVE
    for k in kernels:
        assert k.source in MANIFEST.sources
        assert k.path in k.files and k.path.endswith(k.upstream_path)
        assert set(k.constructs) <= set(corpus.CONSTRUCTS), k.id
        assert k.top
    assert set(corpus.needed_files(MANIFEST)) <= set(MANIFEST.sha256)


@pytest.fixture(scope="session")
def corpus_root(tmp_path_factory):
    """The materialized corpus: this checkout's, else a copy from the upstream snapshots."""
    if corpus.is_materialized(corpus.CORPUS, MANIFEST):
        return corpus.CORPUS
    if not corpus.can_materialize(MANIFEST):
        pytest.skip("corpus files absent and no upstream snapshots in /work/.mirror "
                    "(see tests/data/public/README.md)")
    root = tmp_path_factory.mktemp("public")
    assert corpus.materialize(root, MANIFEST) == []
    return root


def test_files_are_byte_identical_to_upstream(corpus_root):
    changed = [rel for rel in corpus.needed_files(MANIFEST)
               if hashlib.sha256((corpus_root / rel).read_bytes()).hexdigest()
               != MANIFEST.sha256[rel]]
    assert changed == []


# g++ -fsyntax-only on every kernel is most of this file's time (half a second a
# kernel): the default run leaves it to `python bench/corpus.py analyze`, which also
# builds what arraypart emits, and ARRAYPART_CORPUS=1 runs it here too.
GXX_CHECK = bool(os.environ.get("ARRAYPART_CORPUS")) and HAVE_GXX


def _examine(args):
    kernel, root = args
    return corpus.examine(kernel, root, with_gxx=GXX_CHECK)


@pytest.fixture(scope="session")
def verdicts(corpus_root):
    """clang, g++ and the constructs of every kernel, computed once on every core."""
    pytest.importorskip("clang.cindex")
    jobs = [(k, corpus_root) for k in MANIFEST.kernels]
    with ProcessPoolExecutor(max_workers=os.cpu_count() or 1) as pool:
        return {v.kernel.id: v for v in pool.map(_examine, jobs)}


@pytest.mark.parametrize("kernel_id", [k.id for k in MANIFEST.kernels])
def test_kernel_parses_and_compiles_unedited(kernel_id, verdicts):
    verdict = verdicts[kernel_id]
    assert verdict.clang_errors == ()
    assert verdict.gxx_errors == ()
    assert verdict.top_found, f"top function {verdict.kernel.top!r} not defined"
    assert verdict.constructs == verdict.kernel.constructs


# Share of the corpus that `arraypart compile` analyses today (measured by
# `python bench/corpus.py analyze`: 65 of 78 on 2026-12-01): a floor that must not drop,
# issue 11's 80%.
ANALYSED_FLOOR = 0.80


@pytest.mark.skipif(not os.environ.get("ARRAYPART_CORPUS"),
                    reason="compiles all corpus kernels (minutes): set ARRAYPART_CORPUS=1")
@needs_gxx
def test_arraypart_on_every_kernel(corpus_root, tmp_path):
    """Every kernel, unedited, is analysed (and g++ accepts what compile emits) or ends in
    one located error; never a traceback, a signal or a hang."""
    outcomes = [corpus.run_arraypart(k, corpus_root, tmp_path) for k in MANIFEST.kernels]
    assert [o.kernel.id for o in outcomes if o.status == "crash"] == []
    assert [o.kernel.id for o in outcomes if o.gxx_ok is False] == []
    for o in outcomes:
        if o.status == "error":
            assert ": error: " in o.message and o.message.split(":")[1].isdigit(), o.message
    analysed = sum(o.status in ("banked", "missed") for o in outcomes)
    assert analysed >= ANALYSED_FLOOR * len(outcomes), analysed
