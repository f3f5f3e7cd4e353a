"""Function templates of the kernel file, and methods of its class templates: one callee
per instantiation (DESIGN §1).

A call of a function template names one *instantiation*: the template with its
template arguments bound (``load<32, float>`` for ``load(buf, in)`` with
``template <int N, typename T> void load(T (&out)[N], const T *in)``).  clang builds
each instantiation the program uses and libclang shows its body with every template
parameter replaced by its argument (a non-type parameter ``N`` is the constant 32
there), so an instantiation is converted like an ordinary function definition and
inlined at its calls like one.  Its key (:func:`instance_key`) is the template's name
with the arguments spelled out: two calls with the same arguments reach one callee,
two with other arguments two callees (which share the template's text, so the lowering
gives the arrays that text declares one banking for all of them).  A method of a class
template's specialization (``filler<4>::fill``, ``w.dot(h)`` on a ``Window<8> w``) is an
instantiation the same way, its arguments those of the class.
"""

from __future__ import annotations

import clang.cindex as ci

from ..errors import Coord, KernelError
from .clangtu import integer_value

K = ci.CursorKind
A = ci.TemplateArgumentKind


def specialized_template(function: ci.Cursor) -> ci.Cursor | None:
    """The function template ``function`` instantiates (a member function template's
    too, ``q.set<int>(i, v)``), or None (no template)."""
    if function is None or function.kind not in (K.FUNCTION_DECL, K.CXX_METHOD):
        return None
    template = ci.conf.lib.clang_getSpecializedCursorTemplate(function)
    return template if template is not None and template.kind == K.FUNCTION_TEMPLATE \
        else None


def instantiated_template(function: ci.Cursor) -> ci.Cursor | None:
    """The template whose text ``function`` instantiates, by its definition
    (:func:`_defining`): a function template (:func:`specialized_template`), or the
    class template of a method of one of its specializations (``filler<1>::fill``, as
    hls4ml's ``fill_buffer`` is called; ``w.dot(h)`` on a ``Window<8> w``), whose
    parameters the class's arguments bind; None for neither."""
    found = specialized_template(function)
    if found is not None or function is None or function.kind != K.CXX_METHOD:
        return _defining(found)
    owner = function.semantic_parent
    template = ci.conf.lib.clang_getSpecializedCursorTemplate(owner) if owner else None
    return _defining(template) if template is not None \
        and template.kind == K.CLASS_TEMPLATE else None


def _defining(template: ci.Cursor | None) -> ci.Cursor | None:
    """The declaration of ``template`` that defines it, where one does: clang names
    the first declaration, which a header may give (``template <int N> void fill(int
    a[N]);``) while the kernel file defines it, after its callers or before."""
    return None if template is None else template.get_definition() or template


def _arguments_holder(function: ci.Cursor) -> ci.Cursor:
    """The declaration whose template arguments bind ``function``'s template: the
    function itself (a member function template's of a plain class too), or the class
    specialization of a method of a class template (``fibon_s<N>::fibon_f<T>``: N,
    which tells its recursive instances apart)."""
    if function.kind == K.FUNCTION_DECL:
        return function
    parent = function.semantic_parent
    if specialized_template(function) is not None and (
            parent is None or parent.get_num_template_arguments() < 0):
        return function
    return parent


def instance_key(function: ci.Cursor, coord: Coord) -> str:
    """``ns::name<arg, ...>(param types)``: the instantiation's qualified name with its
    template arguments (an integral one by value, a type one by its canonical spelling)
    and its parameter types (overloaded templates may share the arguments); an argument
    of another kind (a template, a pointer) is a located error at the call.  A variadic
    template's pack is one argument whose elements libclang does not list: the holder
    spells them (:func:`_spelled_arguments`)."""
    holder = _arguments_holder(function)
    count = holder.get_num_template_arguments()
    kinds = [holder.get_template_argument_kind(k) for k in range(count)]
    if A.PACK in kinds:
        args = [_spelled_arguments(holder)]
    else:
        args = [_argument(holder, k, kind, function, coord) for k, kind in enumerate(kinds)]
    if count < 0:
        # libclang lists no template arguments of a member function template's
        # specialization; its USR spells them (``c:@S@Q@F@get<#VI0>#1``)
        args.append(_usr_arguments(function))
    params = ", ".join(a.type.get_canonical().spelling for a in function.get_arguments())
    return f"{_qualified(function)}<{', '.join(args)}>({params})"


def _argument(holder: ci.Cursor, k: int, kind: ci.TemplateArgumentKind,
              function: ci.Cursor, coord: Coord) -> str:
    """Template argument ``k`` of ``holder``, an integer or a type, spelled."""
    if kind == A.INTEGRAL:
        return str(holder.get_template_argument_value(k))
    if kind == A.TYPE:
        return holder.get_template_argument_type(k).get_canonical().spelling
    raise KernelError(coord, f"template argument {k + 1} of '{function.spelling}' is a "
                             f"{kind.name.lower()}: arraypart binds integer and type "
                             "template arguments only")


def _spelled_arguments(holder: ci.Cursor) -> str:
    """All template arguments of ``holder``, a pack's elements too, as clang spells them:
    a class specialization's canonical type (``Reg<int, 1, 2>``: ``int, 1, 2``), a
    function's USR (:func:`_usr_arguments`; ``#I#p2CL``: int, a pack of char and long)."""
    if holder.kind == K.FUNCTION_DECL:
        return _usr_arguments(holder)
    spelling = holder.type.get_canonical().spelling
    return spelling[spelling.find("<") + 1:spelling.rfind(">")]


def _usr_arguments(function: ci.Cursor) -> str:
    """``function``'s USR from its first ``<`` to its last ``>``: its template
    arguments, and those of a class template's type among its parameters after them
    (``first<#I#p2CL>#$@S@Tup>#p3ICL#``: ``#I#p2CL>#$@S@Tup``)."""
    usr = function.get_usr()
    return usr[usr.find("<") + 1:usr.rfind(">")]


def bound_constants(function: ci.Cursor) -> tuple[tuple[str, int], ...]:
    """What the template's parameters name in the instantiation ``function``, for the
    pragmas of its text, which keep the parameters' names: a non-type parameter ``N``
    its value; for a type parameter ``CONFIG_T`` bound to a class, ``CONFIG_T::m`` the
    value of each static integer member m (hls4ml's ``II=CONFIG_T::reuse_factor``)."""
    template = instantiated_template(function)
    if template is None:
        return ()
    params = [c for c in template.get_children() if c.kind in (
        K.TEMPLATE_TYPE_PARAMETER, K.TEMPLATE_NON_TYPE_PARAMETER)]
    holder = _arguments_holder(function)
    found: list[tuple[str, int]] = []
    for k, param in enumerate(params[:holder.get_num_template_arguments()]):
        kind = holder.get_template_argument_kind(k)
        if kind == A.INTEGRAL:
            found.append((param.spelling, holder.get_template_argument_value(k)))
        elif kind == A.TYPE:
            record = holder.get_template_argument_type(k).get_canonical().get_declaration()
            for member in record.get_children():
                value = integer_value(member) if member.kind == K.VAR_DECL else None
                if value is not None:
                    found.append((f"{param.spelling}::{member.spelling}", value))
    return tuple(found)


def _qualified(function: ci.Cursor) -> str:
    """``function``'s name with its enclosing namespaces and classes."""
    names = [function.spelling]
    parent = function.semantic_parent
    while parent is not None and parent.kind != K.TRANSLATION_UNIT:
        if parent.spelling:
            names.insert(0, parent.spelling)
        parent = parent.semantic_parent
    return "::".join(names)
