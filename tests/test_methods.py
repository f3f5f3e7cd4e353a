"""Member functions of the kernel's own classes (issue #13, probe 37 F2): a method the
kernel file defines, in its class or out of it, also of a class template, is inlined on
the object it is called on.  Its members are that object's: of a struct element
``W[i]``, accesses of ``W[i]`` (as ``W[i].f[k]`` written in the caller is); of a struct
variable ``w``, its array members are warned as unmodelled (as ``w.f[k]`` is).  Each
kernel is compiled, checked, traced (the original run under g++) and built with its
testbench."""

import pytest

import arraypart
from arraypart import check, ir
from arraypart.errors import KernelError
from arraypart.expr import pretty
from arraypart.ir import Loop

from conftest import assert_the_testbench_passes, assert_the_trace_agrees, needs_gxx, write

# Probe 37's FIR window: a struct holding the taps, its shift and dot product methods,
# a static object in a pipelined loop; dot() reads the file's coef table 8 times.
WINDOW = """\
#include <ap_int.h>
static const ap_int<12> coef[8] = {1, 2, 3, 4, 4, 3, 2, 1};
struct Window {
  ap_int<12> buf[8];
  void shift(ap_int<12> v) {
    for (int i = 7; i > 0; i--) {
#pragma HLS unroll
      buf[i] = buf[i - 1];
    }
    buf[0] = v;
  }
  ap_int<24> dot() {
    ap_int<24> s = 0;
    for (int i = 0; i < 8; i++) {
#pragma HLS unroll
      s += buf[i] * coef[i];
    }
    return s;
  }
};
void cls3(const ap_int<12> in[256], ap_int<24> out[256]) {
  static Window w;
  for (int k = 0; k < 256; k++) {
#pragma HLS pipeline II=1
    w.shift(in[k]);
    out[k] = w.dot();
  }
}
"""

# The same window as a class template, the taps passed to dot() as an array argument.
WINDOW_TEMPLATE = """\
#include <ap_int.h>
#include <hls_stream.h>
template <int N>
struct Window {
  ap_int<12> buf[N];
  void shift(ap_int<12> v) {
    for (int i = N - 1; i > 0; i--) {
#pragma HLS unroll
      buf[i] = buf[i - 1];
    }
    buf[0] = v;
  }
  ap_int<24> dot(const ap_int<12> h[N]) {
    ap_int<24> s = 0;
    for (int i = 0; i < N; i++) {
#pragma HLS unroll
      s += buf[i] * h[i];
    }
    return s;
  }
};
static const ap_int<12> coef[8] = {1, 2, 3, 4, 4, 3, 2, 1};
void cls(hls::stream<ap_int<12> > &in, hls::stream<ap_int<24> > &out, int n) {
#pragma HLS INTERFACE axis port=in
#pragma HLS INTERFACE axis port=out
  static Window<8> w;
#pragma HLS array_partition variable=w.buf complete
  for (int k = 0; k < n; k++) {
#pragma HLS LOOP_TRIPCOUNT max=256
#pragma HLS pipeline II=1
    w.shift(in.read());
    out.write(w.dot(coef));
  }
}
"""

# A const method defined out of its class, reading the caller's array arguments.
OUT_OF_LINE = """\
static const int coef[8] = {1, 2, 3, 4, 4, 3, 2, 1};
struct Acc {
  int k;
  int dot(const int h[8], const int x[256], int base) const;
  void bump();
};
int Acc::dot(const int h[8], const int x[256], int base) const {
  int s = 0;
  for (int i = 0; i < 8; i++) {
#pragma HLS unroll
    s += x[base + i] * h[i];
  }
  return s;
}
void Acc::bump() { k++; }
void ool(const int in[256], int out[256]) {
  Acc a;
  a.k = 0;
  for (int k = 0; k < 248; k++) {
#pragma HLS pipeline II=1
    out[k] = a.dot(coef, in, k);
    a.bump();
  }
}
"""

# Methods called on elements of an array of structs (directly, through a pointer
# parameter, and from another method through this): their members are the element's.
ELEMENTS = """\
struct Pair {
  int a[4];
  int total;
  void clear() {
#pragma HLS inline
    for (int i = 0; i < 4; i++) {
#pragma HLS unroll
      a[i] = 0;
    }
    total = 0;
  }
  int get(int i) const { return a[i]; }
  int both(int i) const { return get(i) + this->get(i + 1); }
  void put(int i, int v) { total += v; a[i] = v; }
};
static void store(Pair *p, int i, int v) { p->put(i, v); }
void pairs(const int in[64], int out[64]) {
  Pair ps[16];
  for (int k = 0; k < 16; k++) {
    ps[k].clear();
  }
  for (int k = 0; k < 64; k++) {
#pragma HLS pipeline II=1
    store(&ps[k / 4], k % 3, in[k]);
    out[k] = ps[(k + 5) % 16].both(k % 3);
  }
}
"""

# A method the class declares and the kernel file never defines.
DECLARED_ONLY = """\
struct Window {
  int buf[8];
  void shift(int v);
  int dot() const;
};
void decl(const int in[256], int out[256]) {
  static Window w;
  for (int k = 0; k < 256; k++) {
#pragma HLS pipeline II=1
    w.shift(in[k]);
    out[k] = w.dot();
  }
}
"""


# Probe 37b F1/F2: a method that writes q[k / 4] while three other elements are read
# through get<K>(), which made the solver give q copies (or route the reads above the
# call) when the write was counted as a read: WRITE is put's body, CALL its call.
WRITES_ELEMENT = """\
struct Q {
  int a[4];
  WRITE
  template <int K> int get() const { return a[K]; }
};
void wq(const int in[64], int out[64]) {
  Q q[16];
  for (int k = 0; k < 16; k++) {
    for (int i = 0; i < 4; i++) q[k].a[i] = 0;
  }
  for (int k = 0; k < 64; k++) {
#pragma HLS pipeline II=1
    CALL;
    out[k] = q[(k + 1) % 16].get<0>() + q[(k + 2) % 16].get<1>() + q[(k + 3) % 16].get<2>();
  }
}
"""
WRITING_FORMS = {
    "template": ("template <typename T> void put(T i, int v) { a[i] = v; }",
                 "q[k / 4].put(k % 4, in[k])"),
    "call_operator": ("void operator()(int i, int v) { a[i] = v; }",
                      "q[k / 4](k % 4, in[k])"),
    "deref_this": ("void put(int i, int v) { (*this).a[i] = v; }",
                   "q[k / 4].put(k % 4, in[k])"),
    "assign_this": ("void put(int i, int v) { Q t = *this; t.a[i] = v; *this = t; }",
                    "q[k / 4].put(k % 4, in[k])"),
    # probe 37c F2: the class's own operators were an element's one read and one write
    "compound_operator": ("Q &operator+=(int v) { for (int j = 0; j < 4; j++) a[j] += v; "
                          "return *this; }", "q[k / 4] += in[k]"),
    "assign_operator": ("Q &operator=(int v) { a[0] = v; a[1] = v; return *this; }",
                        "q[k / 4] = in[k]"),
}

# Probe 37b F4: a method of a struct nested in an element of an array of structs.
NESTED = """\
struct Inner { int a[2]; int sum() const { return a[0] + a[1]; } };
struct Outer { Inner in[4]; };
void nested(const int x[64], int out[64]) {
  Outer o[8];
  for (int k = 0; k < 64; k++) {
#pragma HLS pipeline II=1
    o[k / 8].in[(k / 2) % 4].a[k % 2] = x[k];
  }
  for (int k = 0; k < 64; k++) {
#pragma HLS pipeline II=1
    out[k] = o[k % 8].in[k % 4].sum() + o[(k + 3) % 8].in[k % 4].sum() + o[(k + 5) % 8].in[k % 4].sum();
  }
}
"""


def _compiled(tmp_path, name, text):
    return arraypart.compile_kernel(write(tmp_path, name, text))


def _concurrent(compiled, name):
    return next(a for a in compiled.report.solution.arrays
                if a.array.name == name).max_concurrent


def _checked_iis(compiled):
    """The II of each loop that ``check`` replays, with the one ``compile`` claims."""
    report = compiled.report
    checked = check.check_kernel(report.kernel, report.solution.bankings(), ports=2)
    claimed = [loop["achieved_ii"] for loop in report.to_json()["loops"]]
    return [loop.achieved_ii for loop in checked.loops], claimed


@needs_gxx
def test_a_struct_methods_accesses_of_its_own_array_are_counted(tmp_path):
    """dot()'s 8 reads of coef were not seen (its calls were "not defined in the
    kernel file"): II 1 was claimed where the trace found II 4.  Now coef is read 8
    times a cycle and banked, compile, check and the trace agree; so is w.buf, the
    array member of the struct variable the methods are called on (a memory of its
    own, which it was only warned of): shift() and dot() touch all 8 of its elements
    a cycle, and it is partitioned whole by a pragma naming it."""
    compiled = _compiled(tmp_path, "cls3.cpp", WINDOW)
    assert _concurrent(compiled, "coef") == _concurrent(compiled, "w.buf") == 8
    checked, claimed = _checked_iis(compiled)
    assert checked == claimed == [1]
    warnings = "\n".join(compiled.report.warnings)
    assert "does not define" not in warnings and "keep up" not in warnings
    assert "#pragma HLS array_partition variable=w.buf type=complete dim=1" in \
        compiled.files["cls3.cpp"]
    assert_the_trace_agrees(compiled, tmp_path, ports=2)
    assert_the_testbench_passes(compiled, tmp_path)


@needs_gxx
def test_a_class_templates_methods_bind_its_argument_and_an_array_argument(tmp_path):
    """Window<8>::dot(coef) was an error ("'dot', whose definition is not in the kernel
    file"); now N is 8 in the instantiation and h is the caller's coef."""
    compiled = _compiled(tmp_path, "cls.cpp", WINDOW_TEMPLATE)
    assert _concurrent(compiled, "coef") == 8
    checked, claimed = _checked_iis(compiled)
    assert checked == claimed == [1]
    assert_the_trace_agrees(compiled, tmp_path, ports=2)
    assert_the_testbench_passes(compiled, tmp_path)


@needs_gxx
def test_a_const_method_defined_out_of_its_class_reads_the_callers_arrays(tmp_path):
    compiled = _compiled(tmp_path, "ool.cpp", OUT_OF_LINE)
    assert _concurrent(compiled, "coef") == 8
    assert _concurrent(compiled, "in") == 8
    checked, claimed = _checked_iis(compiled)
    assert checked == claimed
    assert_the_trace_agrees(compiled, tmp_path, ports=2)
    assert_the_testbench_passes(compiled, tmp_path)


@needs_gxx
def test_methods_on_struct_elements_access_those_elements(tmp_path):
    """put() on ps[k / 4] reads and writes that element (total += v, a[i] = v); both()
    reads ps[(k + 5) % 16] through get() twice: the object of each call is the element
    its members are part of, in the model and in the recorded run alike."""
    compiled = _compiled(tmp_path, "pairs.cpp", ELEMENTS)
    pipelined = [n for n in compiled.report.kernel.body if isinstance(n, Loop)][-1]
    touched = {(a.kind, a.field, a.coord.line) for a in ir.accesses(pipelined.body)
               if a.array == "ps"}
    assert touched == {("read", "total", 14), ("write", "total", 14),
                       ("write", "a", 14), ("read", "a", 12)}
    checked, claimed = _checked_iis(compiled)
    assert checked == claimed
    assert_the_trace_agrees(compiled, tmp_path, ports=2)
    assert_the_testbench_passes(compiled, tmp_path)


def test_a_method_only_declared_is_a_located_error(tmp_path):
    """It was a warning saying the kernel file does not define 'shift', and II 1 was
    claimed without the method's accesses."""
    with pytest.raises(KernelError) as error:
        _compiled(tmp_path, "decl.cpp", DECLARED_ONLY)
    assert (error.value.coord.line, error.value.coord.col) == (10, 5)
    assert ("'w' holds arrays and its method 'Window::shift' is called here, which the "
            "kernel file declares without defining it") in str(error.value)



@needs_gxx
@pytest.mark.parametrize("form", sorted(WRITING_FORMS))
def test_a_method_that_writes_its_element_is_inlined(tmp_path, form):
    """A method template, operator() and (*this).a[i] were counted as reads of
    q[k / 4] only (and *this = t not at all; the class's own += and = as one read and
    one write of the element, whatever their bodies access): q got copies (the writes reached copy 0) or its reads were routed
    above the call, and the testbench failed.  Now each is inlined: put writes
    q[k / 4], and the trace and the testbench agree."""
    write_body, call = WRITING_FORMS[form]
    text = WRITES_ELEMENT.replace("WRITE", write_body).replace("CALL", call)
    compiled = _compiled(tmp_path, "wq.cpp", text)
    pipelined = [n for n in compiled.report.kernel.body if isinstance(n, Loop)][-1]
    assert ("write", 3) in {(a.kind, a.coord.line) for a in ir.accesses(pipelined.body)
                            if a.array == "q"}
    assert_the_trace_agrees(compiled, tmp_path, ports=2)
    assert_the_testbench_passes(compiled, tmp_path)


# Method forms arraypart does not follow on an element, each a located error: WRITE,
# CALL, the error's (line, col) and part of its message.
UNFOLLOWED_FORMS = {
    # the second call's object is what the first returns (probe 37c F2)
    "chained": ("Q &set(int i, int v) { a[i] = v; return *this; }",
                "q[k / 4].set(k % 4, in[k]).set((k + 1) % 4, 0)", (13, 5),
                "is called on what another call returns"),
    # it was warned as an unmodelled 'self.a', and the write of q[k / 4] missed
    "reference_to_this": ("void put(int i, int v) { Q &self = *this; self.a[i] = v; }",
                          "q[k / 4].put(k % 4, in[k])", (3, 31),
                          "'self' names the object this method is called on, an element "
                          "of array 'q'"),
}


@pytest.mark.parametrize("form", sorted(UNFOLLOWED_FORMS))
def test_a_method_form_not_followed_on_an_element_is_a_located_error(tmp_path, form):
    """Its writes of the element would go uncounted: wrong code, so a located error."""
    write_body, call, at, message = UNFOLLOWED_FORMS[form]
    text = WRITES_ELEMENT.replace("WRITE", write_body).replace("CALL", call)
    with pytest.raises(KernelError) as error:
        _compiled(tmp_path, "wq.cpp", text)
    assert (error.value.coord.line, error.value.coord.col) == at
    assert message in str(error.value)


@needs_gxx
def test_a_method_defined_in_a_header_on_an_element_is_inlined(tmp_path):
    """put() defined in the kernel's own header was counted as a read of q[k / 4]
    (q got copies and only copy 0 was written), then refused as a method arraypart
    cannot inline; now it is inlined as the file's own: it writes q[k / 4] at the
    header's coordinates, and the trace, which records neither the header's accesses
    nor the object of its method's call, agrees (it found a read of q[0] at the call
    the model did not have)."""
    write(tmp_path, "q.h", "struct Q {\n  int a[4];\n"
          "  void put(int i, int v) { a[i] = v; }\n"
          "  int get(int i) const { return a[i]; }\n};\n")
    text = WRITES_ELEMENT.split("void wq", 1)[1].replace("get<0>()", "get(0)").replace(
        "get<1>()", "get(1)").replace("get<2>()", "get(2)").replace(
        "CALL", "q[k / 4].put(k % 4, in[k])")
    compiled = _compiled(tmp_path, "wq.cpp", '#include "q.h"\nvoid wq' + text)
    pipelined = [n for n in compiled.report.kernel.body if isinstance(n, Loop)][-1]
    assert {(a.kind, a.coord.line) for a in ir.accesses(pipelined.body)
            if a.array == "q" and a.coord.file.endswith("q.h")} == {("write", 3), ("read", 4)}
    judged = assert_the_trace_agrees(compiled, tmp_path, ports=2)
    assert f"{tmp_path / 'q.h'}:3:28: access in a function a header defines, not traced" \
        in judged.format()
    assert_the_testbench_passes(compiled, tmp_path)


# Issue #13: a class of the kernel's own header, each form of it (a header's text,
# what the kernel file appends, the class's name there): load() fills a.buf, and
# sum4() reads 4 of its words a cycle in the pipelined loop, as the class written in
# the kernel file does (a.buf, an array field of a struct variable, cyclic 4).
LOAD = "{ for (int i = 0; i < 16; i++) buf[i] = in[i]; }"
SUM4 = "{ return buf[4 * j] + buf[4 * j + 1] + buf[4 * j + 2] + buf[4 * j + 3]; }"
DECLARED = ("struct Acc {\n  int buf[16];\n  void load(const int *in);\n"
            "  int sum4(int j) const;\n};\n")
HEADER_CLASSES = {
    "in_class": (f"struct Acc {{\n  int buf[16];\n  void load(const int *in) {LOAD}\n"
                 f"  int sum4(int j) const {SUM4}\n}};\n", "", "Acc"),
    "out_of_class": (DECLARED + f"inline void Acc::load(const int *in) {LOAD}\n"
                     f"inline int Acc::sum4(int j) const {SUM4}\n", "", "Acc"),
    "class_template": (f"template <int N>\nstruct Acc {{\n  int buf[N];\n"
                       f"  void load(const int *in) {LOAD}\n"
                       f"  int sum4(int j) const {SUM4}\n}};\n", "", "Acc<16>"),
    "defined_in_the_kernel_file": (DECLARED, f"void Acc::load(const int *in) {LOAD}\n"
                                   f"int Acc::sum4(int j) const {SUM4}\n", "Acc"),
    # load() out of the class template in the header, sum4() in the kernel file (which
    # the testbench moved out of namespace original as 'inline template': no C++)
    "class_template_out_of_class": (
        "template <int N>\nstruct Acc {\n  int buf[N];\n  void load(const int *in);\n"
        f"  int sum4(int j) const;\n}};\ntemplate <int N>\nvoid Acc<N>::load(const int *in) "
        f"{LOAD}\n", f"template <int N>\nint Acc<N>::sum4(int j) const {SUM4}\n", "Acc<16>"),
}
HEADER_CLASS_KERNEL = """\
#include "acc.h"
void acc(const int in[16], int out[4]) {
  CLASS a;
  a.load(in);
  for (int j = 0; j < 4; j++) {
#pragma HLS pipeline II=1
    out[j] = a.sum4(j);
  }
}
"""


@needs_gxx
@pytest.mark.parametrize("form", sorted(HEADER_CLASSES))
def test_a_header_class_methods_count_and_bank_its_array_field(tmp_path, form):
    """a.load(in) was "not in the kernel file" (a located error; the class template's
    'load' a false "does not see its loops"): now each method is read like the file's
    own, a.buf is read 4 times a cycle and banked cyclic 4 (four 4-word register
    files: 416 LUTs by yosys, against 1,380 for cyclic 2's two dual-port ones) by a
    pragma at the declaration of a in the kernel file, the header's text is not edited, and the
    checker, the trace and the testbench agree."""
    header, appended, name = HEADER_CLASSES[form]
    write(tmp_path, "acc.h", "#pragma once\n" + header)
    compiled = _compiled(tmp_path, "acc.cpp",
                         HEADER_CLASS_KERNEL.replace("CLASS", name) + appended)
    assert compiled.report.kernel.warnings == ()
    solved = next(a for a in compiled.report.solution.arrays if a.array.name == "a.buf")
    assert (solved.max_concurrent, solved.banking.scheme.banks, solved.conflict_free) == (
        4, 4, True)
    checked, claimed = _checked_iis(compiled)
    assert checked == claimed == [1, 1]
    assert "#pragma HLS array_partition variable=a.buf type=cyclic factor=4 dim=1" in \
        compiled.files["acc.cpp"]
    assert "acc.h" not in compiled.files
    assert_the_trace_agrees(compiled, tmp_path, ports=2)
    assert_the_testbench_passes(compiled, tmp_path)


@needs_gxx
def test_the_files_explicit_specialization_of_a_header_class_templates_method(tmp_path):
    """The testbench moves the file's template <> int Acc<16>::sum4 out of namespace
    original, inline after 'template <>' (before it, 'inline template <>' is no C++;
    without it, the banked kernel's definition and this one are two of one function:
    the testbench did not link)."""
    write(tmp_path, "acc.h", "#pragma once\n" + HEADER_CLASSES["class_template"][0].replace(
        f"int sum4(int j) const {SUM4}", "int sum4(int j) const;"))
    specialized = f"template <>\nint Acc<16>::sum4(int j) const {SUM4}\n"
    text = HEADER_CLASS_KERNEL.replace("CLASS", "Acc<16>").replace(
        '#include "acc.h"\n', '#include "acc.h"\n' + specialized)
    compiled = _compiled(tmp_path, "acc.cpp", text)
    solved = next(a for a in compiled.report.solution.arrays if a.array.name == "a.buf")
    assert solved.max_concurrent == 4
    assert_the_trace_agrees(compiled, tmp_path, ports=2)
    assert_the_testbench_passes(compiled, tmp_path)


def test_a_header_method_defined_in_no_file_read_is_a_located_error(tmp_path):
    """A header that only declares load() (defined in another .cpp): what it does with
    a.buf is unseen, so the call is a located error that names where a definition
    would be read (it said "the kernel file" only, where a header's now is too)."""
    write(tmp_path, "acc.h", "#pragma once\n" + DECLARED)
    with pytest.raises(KernelError) as error:
        _compiled(tmp_path, "acc.cpp", HEADER_CLASS_KERNEL.replace("CLASS", "Acc"))
    assert (error.value.coord.line, error.value.coord.col) == (4, 3)
    assert ("its method 'load' is called here, whose definition is neither in the kernel "
            "file nor in a header of your own") in str(error.value)


# A file-scope struct variable g of the header's class (and a table hb beside it):
# defined in the header, or declared there (extern) and defined in the kernel file.
HEADER_GLOBALS = {
    "defined_in_the_header": ("static Acc g;\nstatic int hb[16];\n", "", True),
    "defined_in_the_kernel_file": ("extern Acc g;\nextern int hb[16];\n",
                                   "Acc g;\nint hb[16];\n", False),
}
HEADER_GLOBAL_KERNEL = """\
#include "acc.h"
DEFINED
void glob(const int in[16], int out[4]) {
  for (int i = 0; i < 16; i++) {
    g.buf[i] = in[i];
    hb[i] = in[i];
  }
  for (int j = 0; j < 4; j++) {
#pragma HLS pipeline II=1
    out[j] = g.sum4(j) + hb[j];
  }
}
"""


@needs_gxx
@pytest.mark.parametrize("form", sorted(HEADER_GLOBALS))
def test_a_header_struct_variable_is_counted_and_banked(tmp_path, form):
    """A header's struct variable was not modelled (g.buf "does not count its
    accesses word by word": II 1 assumed); its array field is a memory now, banked
    by a pragma in the top (its declaration stays in the header, as a header table's
    does), where the file's own g would be.  An extern declaration in the header of
    what the file defines was "declared twice" (and the trace would have registered
    the header's ::g, which nothing defines)."""
    declared, defined, in_header = HEADER_GLOBALS[form]
    write(tmp_path, "acc.h", "#pragma once\n" + HEADER_CLASSES["in_class"][0] + declared)
    compiled = _compiled(tmp_path, "glob.cpp",
                         HEADER_GLOBAL_KERNEL.replace("DEFINED\n", defined))
    assert compiled.report.kernel.warnings == ()
    solved = {a.array.name: a for a in compiled.report.solution.arrays}
    assert solved["g.buf"].array.header == solved["hb"].array.header == in_header
    assert (solved["g.buf"].max_concurrent, solved["g.buf"].banking.scheme.banks) == (4, 4)
    assert "#pragma HLS array_partition variable=g.buf type=cyclic factor=4 dim=1" in \
        compiled.files["glob.cpp"]
    assert_the_trace_agrees(compiled, tmp_path, ports=2)
    assert_the_testbench_passes(compiled, tmp_path)


@needs_gxx
def test_a_method_of_a_struct_nested_in_an_element_accesses_that_element(tmp_path):
    """o[k % 8].in[k % 4].sum() was not counted ('a' warned as unmodelled) and II 1
    claimed where the trace found 3; now each call reads o[k % 8] twice, as the same
    reads written out do, and the model, the checker and the trace agree."""
    compiled = arraypart.compile_kernel(write(tmp_path, "nested.cpp", NESTED),
                                        max_banks=1)
    assert not compiled.report.warnings or all(
        "array member of the object" not in w for w in compiled.report.warnings)
    pipelined = [n for n in compiled.report.kernel.body if isinstance(n, Loop)][-1]
    assert sum(a.array == "o" and a.kind == "read"
               for a in ir.accesses(pipelined.body)) == 6
    checked, claimed = _checked_iis(compiled)
    assert checked == claimed
    assert_the_trace_agrees(compiled, tmp_path, ports=2)
    assert_the_testbench_passes(compiled, tmp_path)


# A class template's methods call methods of the elements of its array of structs:
# clang leaves those calls unnamed in the template's text (cells[k] has a type that
# depends on N there).
TEMPLATE_ELEMENTS = """\
struct Cell {
  int a[4];
  void put(int i, int v) { a[i] = v; }
  int sum() const { return a[0] + a[3]; }
};
template <int N>
struct Bank {
  Cell cells[N];
  void set(int k, int i, int v) { cells[k].put(i, v); }
  int total(int k) const { return cells[k].sum() + cells[(k + 1) % N].sum(); }
};
void banked(const int src[32], int out[8]) {
  Bank<8> b;
  for (int k = 0; k < 32; k++) b.set(k / 4, k % 4, src[k]);
  for (int k = 0; k < 8; k++) {
#pragma HLS pipeline II=1
    out[k] = b.total(k);
  }
}
"""


@needs_gxx
def test_element_methods_called_in_a_class_templates_text_are_traced_as_inlined(tmp_path):
    """check --trace recorded cells[k] at each such call as a read of b.cells[k] (the
    template's text names no method there), which the model, inlining put() and sum()
    on the element, does not make: a false "the program reads b.cells[0], the model
    does not".  The method is found by the element's class, as each instantiation
    has it."""
    compiled = _compiled(tmp_path, "banked.cpp", TEMPLATE_ELEMENTS)
    assert_the_trace_agrees(compiled, tmp_path, ports=2)


# Vitis' own using_cpp_templates example: a static member function template of a class
# template, recursing through the class's specializations.
FIBONACCI = """\
template <int N> struct fibon_s {
    template <typename T> static T fibon_f(T a, T b) {
        return fibon_s<N - 1>::fibon_f(b, (a + b));
    }
};
template <> struct fibon_s<1> {
    template <typename T> static T fibon_f(T a, T b) { return b; }
};
void fib(int a, int b, int &dout) {
    dout = fibon_s<8>::fibon_f(a, b);
}
"""


def test_member_templates_of_class_template_specializations_are_told_apart(tmp_path):
    """fibon_s<8>::fibon_f<int> calls fibon_s<7>::fibon_f<int>: the method template's
    key took its own arguments only, so the two were one function calling itself
    ("recursive call of 'fibon_f'", a located error on Vitis' example)."""
    report = arraypart.analyze(write(tmp_path, "fib.cpp", FIBONACCI))
    assert report.kernel.name == "fib"


# FINN's StreamingEltwise calls its functor on a temporary of a template parameter's
# type, SliceIn0()(in0.read(), 0); S()(buf, i) here, and the same functor spelt out.
TEMPORARY_FUNCTORS = """\
template <typename T> struct Pair {
  T operator()(const T (&v)[64], int i) const { return v[i] + v[63 - i]; }
};
struct Plain {
  int operator()(const int (&v)[64], int i) const { return v[i] - v[63 - i]; }
};
template <typename S> int apply(const int (&v)[64], int i) { return S()(v, i); }
void fun(const int in[64], int out[64]) {
  int buf[64];
  for (int i = 0; i < 64; i++)
    buf[i] = in[i];
  for (int i = 0; i < 64; i++) {
#pragma HLS pipeline II=1
    out[i] = apply<Pair<int>>(buf, i) + Plain()(buf, i);
  }
}
"""


def test_a_functor_called_on_a_temporary_of_a_template_parameter_is_inlined(tmp_path):
    """S()(v, i) was a located error ("called on what another call returns"): in the
    instantiation clang gives the constructor call of S() no child, which was read as
    a call returning the object.  A temporary is no array element: it is inlined as
    Plain()(v, i) is, its reads of buf counted."""
    report = arraypart.analyze(write(tmp_path, "fun.cpp", TEMPORARY_FUNCTORS))
    pipelined = [n for n in report.kernel.body if isinstance(n, Loop)][-1]
    assert [(a.kind, pretty(a.index[0])) for a in ir.accesses(pipelined.body)
            if a.array == "buf"] == [("read", "i"), ("read", "-1*i + 63")] * 2


# hlslib's DataPack: result[w] = v calls operator= of the proxy that operator[] returns,
# which writes the pack it refers to: a struct variable here, no memory.  PROXY is the
# proxy's method, CALL its use; the two forms after it may reach an array.
PROXY = """\
static int table[4];
struct Pack;
struct Proxy {
  Pack &p;
  int i;
  void operator=(int v);
};
struct Pack {
  long long data;
  void set(int i, int v) { data = (data & ~(0xffffLL << (16 * i))) | ((long long)(v & 0xffff) << (16 * i)); }
  int get(int i) const { return (int)((data >> (16 * i)) & 0xffff); }
  Proxy operator[](int i) { return Proxy{*this, i}; }
  Proxy at(const int *v, int i) { return Proxy{*this, v[i] & 3}; }
  Proxy slot(int i) { return Proxy{*this, table[i] & 3}; }
};
void Proxy::operator=(int v) { p.set(i, v); }
void packs(const int in[64], int out[64]) {
  for (int k = 0; k < 64; k++) {
#pragma HLS pipeline II=1
    Pack r;
    r.data = 0;
    CALL;
    r[1] = in[63 - k];
    out[k] = r.get(0) + r.get(1);
  }
}
"""


@needs_gxx
def test_a_method_on_a_proxy_of_a_struct_variable_is_inlined(tmp_path):
    """r[0] = v was a located error ("called on what another call returns"); the
    proxy refers to r, a struct variable, so what operator= writes is no memory."""
    compiled = _compiled(tmp_path, "packs.cpp", PROXY.replace("CALL", "r[0] = in[k]"))
    pipelined = [n for n in compiled.report.kernel.body if isinstance(n, Loop)][-1]
    assert [pretty(a.index[0]) for a in ir.accesses(pipelined.body)
            if a.array == "in"] == ["k", "-1*k + 63"]
    assert_the_testbench_passes(compiled, tmp_path)


@pytest.mark.parametrize("call", ["r.at(in, k) = in[k]", "r.slot(k % 4) = in[k]"])
def test_a_method_on_a_proxy_that_may_reach_an_array_is_a_located_error(tmp_path, call):
    """Given an array, or naming one, the call may return a proxy into it, whose
    writes arraypart would miss."""
    with pytest.raises(KernelError) as error:
        _compiled(tmp_path, "packs.cpp", PROXY.replace("CALL", call))
    assert (error.value.coord.line, error.value.coord.col) == (22, 5)
    assert "is called on what another call returns" in str(error.value)


# Two classes named A, in two namespaces, each with its own get (probe 39b M4).
NAMESAKE_CLASSES = """namespace n1 { struct A { int b[8]; int get(int i) const { return b[i]; } }; }
namespace n2 { struct A { int b[8]; int get(int i) const { return b[7 - i]; } }; }
void namesakes(const int in[8], int out[8]) {
  n1::A x; n2::A y;
  for (int i = 0; i < 8; i++) { x.b[i] = in[i]; y.b[i] = in[i] + 1; }
  for (int i = 0; i < 8; i++) {
#pragma HLS pipeline II=1
    out[i] = x.get(i) + y.get(i);
  }
}
"""


@needs_gxx
def test_methods_of_namesake_classes_in_two_namespaces_are_two_functions(tmp_path):
    """``n1::A::get`` and ``n2::A::get`` were one key ``A::get``, refused as overloads
    ("defined more than once"): each is now inlined as its own, x.b read at i and y.b
    at 7 - i, and the testbench and the trace agree."""
    compiled = _compiled(tmp_path, "namesakes.cpp", NAMESAKE_CLASSES)
    accesses = {(a.array, pretty(a.index[0])) for a in ir.accesses(compiled.report.kernel.body)
                if a.kind == "read" and a.array in ("x.b", "y.b")}
    assert accesses == {("x.b", "i"), ("y.b", "-1*i + 7")}
    assert_the_trace_agrees(compiled, tmp_path, ports=2)
    assert_the_testbench_passes(compiled, tmp_path)
