"""CSR times dense in scipy's order of additions, each row's sums held in vector registers: LLVM IR, built by llvmlite.

scipy's ``csr_matvecs`` computes row i of ``A @ B`` from zero, adding ``a * B[j]`` for each stored
nonzero ``a`` at ``(i, j)`` in storage order, entry by entry. These kernels make the same
additions in the same order, a block of columns at a time: the block's entries of row i start as
zero vectors in registers, take every nonzero of the row, and are stored once. numba's loops
cannot hold them there (it vectorises only an innermost loop, so the row goes back to memory after
each few nonzeros), which costs most where B has few columns, as in a solver's last iterations.

The IR multiplies and adds in separate instructions without fast-math flags, so LLVM rounds as scipy does,
never fusing the two into an FMA. Only the last vector of the columns' last block is masked to the columns
that exist: the whole blocks load and store plainly, as a masked load or store costs several plain ones on a
CPU without AVX-512's masks (docs/speed.md). Each nonzero prefetches the row of B that the nonzero
``PREFETCH_AHEAD`` places on will read (the rows are gathered at random, from L2 or beyond; a prefetch changes
no sum): every line of it on AVX2, and its first line with AVX-512, where a prefetch a line takes load slots
the vectors need (docs/speed.md). B's rows may be further apart than its columns: rows padded to whole cache
lines, as MLP keeps them, so that no vector load straddles two lines. The ``_onto`` kernels start each row's
sums from the output's entries instead of zero, so a product can be taken in chunks of B's rows
(:mod:`~mlhidden.methods.sparse_products`) with every sum's terms in the same order. llvmlite compiles it for
this CPU (its widest vectors) on first use in a process, in about a tenth of a second. llvmlite comes with numba
(the ``fast`` extra); without it there are no kernels here, and :mod:`~mlhidden.methods.sparse_products` leaves
the product to scipy.
"""

from __future__ import annotations

import ctypes
import functools
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np


@dataclass(frozen=True)
class Blocking:
    """How a CPU's kernels take B: vector registers of accumulators a block of columns (16 floats or 8 doubles
    each), and whether a nonzero prefetches every cache line of its row of B or only the first."""

    vectors: int
    every_line: bool


# AVX-512's 32 registers hold 8 accumulators beside the rows' operands, AVX2's 16 (two a vector of 16 floats) 4.
BLOCKING = {"avx512": Blocking(vectors=8, every_line=False), "avx2": Blocking(vectors=4, every_line=True)}
# Nonzeros ahead whose row of B is prefetched: the rows are gathered at random, from L2 or beyond.
PREFETCH_AHEAD = 8
CACHE_LINE = 64
# numpy dtype -> (IR type, lanes per vector, intrinsic suffix)
IR_TYPES: dict[np.dtype[Any], tuple[str, int, str]] = {
    np.dtype(np.float32): ("float", 16, "v16f32"),
    np.dtype(np.float64): ("double", 8, "v8f64"),
}

_KERNEL = """
define void @rows_times_dense_{T}_{V}{suffix}(i64 %n, ptr noalias %indptr, ptr noalias %indices, ptr noalias %data,
                                      ptr noalias %B, i64 %B.stride, i64 %K, i64 %k.start, i64 %k.stop,
                                      ptr noalias %out) {{
entry:
  %k.0 = insertelement <{W} x i64> poison, i64 %k.stop, i32 0
  %k.all = shufflevector <{W} x i64> %k.0, <{W} x i64> poison, <{W} x i32> zeroinitializer
  %at.last = getelementptr i32, ptr %indptr, i64 %n
  %last.32 = load i32, ptr %at.last
  %last.64 = sext i32 %last.32 to i64
  %last = sub i64 %last.64, 1
  br label %block.head
block.head:
  %k0 = phi i64 [%k.start, %entry], [%k0.next, %rows.done]
  %blocks.left = icmp slt i64 %k0, %k.stop
  br i1 %blocks.left, label %block.body, label %done
block.body:
  %k0.0 = insertelement <{W} x i64> poison, i64 %k0, i32 0
  %k0.all = shufflevector <{W} x i64> %k0.0, <{W} x i64> poison, <{W} x i32> zeroinitializer
{masks}
  br label %row.head
row.head:
  %i = phi i64 [0, %block.body], [%i.next, %row.stored]
  %rows.left = icmp slt i64 %i, %n
  br i1 %rows.left, label %row.body, label %rows.done
row.body:
  %at.start = getelementptr i32, ptr %indptr, i64 %i
  %i.next = add i64 %i, 1
  %at.stop = getelementptr i32, ptr %indptr, i64 %i.next
  %start.32 = load i32, ptr %at.start
  %stop.32 = load i32, ptr %at.stop
  %start = sext i32 %start.32 to i64
  %stop = sext i32 %stop.32 to i64
  %iK = mul i64 %i, %K
  %out.start = add i64 %iK, %k0
  %out.row = getelementptr {T}, ptr %out, i64 %out.start
{starts}
  br label %nz.head
nz.head:
  %s = phi i64 [%start, %row.body], [%s.next, %nz.body]
{accumulators}
  %nz.left = icmp slt i64 %s, %stop
  br i1 %nz.left, label %nz.body, label %row.stored
nz.body:
  %at.j = getelementptr i32, ptr %indices, i64 %s
  %j.32 = load i32, ptr %at.j
  %j = sext i32 %j.32 to i64
  %at.a = getelementptr {T}, ptr %data, i64 %s
  %a = load {T}, ptr %at.a
  %a.0 = insertelement <{W} x {T}> poison, {T} %a, i32 0
  %a.all = shufflevector <{W} x {T}> %a.0, <{W} x {T}> poison, <{W} x i32> zeroinitializer
  %jK = mul i64 %j, %B.stride
  %b.start = add i64 %jK, %k0
  %b.row = getelementptr {T}, ptr %B, i64 %b.start
  %s.ahead = add i64 %s, {ahead}
  %ahead.ok = icmp slt i64 %s.ahead, %last
  %s.pf = select i1 %ahead.ok, i64 %s.ahead, i64 %last
  %at.jpf = getelementptr i32, ptr %indices, i64 %s.pf
  %jpf.32 = load i32, ptr %at.jpf
  %jpf = sext i32 %jpf.32 to i64
  %jpfK = mul i64 %jpf, %B.stride
  %pf.start = add i64 %jpfK, %k0
  %pf.row = getelementptr {T}, ptr %B, i64 %pf.start
{prefetches}
{additions}
  %s.next = add i64 %s, 1
  br label %nz.head
row.stored:
{stores}
  br label %row.head
rows.done:
  %k0.next = add i64 %k0, {block}
  br label %block.head
done:
  ret void
}}
"""


def kernel_ir(
    dtype: np.dtype[Any], vectors: int, onto: bool = False, masked: bool = True, every_line: bool = True,
) -> str:
    """The IR of ``rows_times_dense_<type>_<vectors>(n, indptr, indices, data, B, B_stride, K, k_start, k_stop,
    out)``: columns ``k_start:k_stop`` of ``out = A @ B``, ``vectors`` vector registers of them at a time, for the
    n rows of a CSR A (int32 indices), a B whose rows are contiguous and ``B_stride`` entries apart, and a C-ordered
    out with K columns. ``every_line``: each nonzero prefetches every line its row of B spans, else the first.
    ``onto``: ``..._onto``, which computes ``out += A @ B``, each row's sums starting from ``out``'s entries (a sum
    stored and reloaded keeps its bits). ``masked``: the last vector's loads and stores masked to the columns below
    ``k_stop`` (the others are whole: the block ends at ``k_stop``); without, for blocks that are whole. A masked
    load or store costs much more than a plain one on a CPU without AVX-512's masks."""
    T, W, S = IR_TYPES[dtype]
    parts: dict[str, list[str]] = {
        "prefetches": [],
        "masks": [],
        "starts": [],
        "accumulators": [],
        "additions": [],
        "stores": [],
    }
    for v in range(vectors):
        mask = f"%mask{v}" if masked and v == vectors - 1 else None
        lanes = ", ".join(f"i64 {v * W + lane}" for lane in range(W))
        parts["masks"] += [
            f"  %col{v} = add <{W} x i64> %k0.all, <{lanes}>",
            f"  %mask{v} = icmp slt <{W} x i64> %col{v}, %k.all",
        ]
        parts["starts"].append(f"  %at.out{v} = getelementptr {T}, ptr %out.row, i64 {v * W}")
        start = "zeroinitializer"
        if onto:
            start = f"%start{v}"
            parts["starts"].append(f"  %start{v} = {_load(T, W, S, f'%at.out{v}', mask)}")
        parts["accumulators"].append(f"  %sum{v} = phi <{W} x {T}> [{start}, %row.body], [%sum{v}.next, %nz.body]")
        parts["additions"] += [
            f"  %at.b{v} = getelementptr {T}, ptr %b.row, i64 {v * W}",
            f"  %b{v} = {_load(T, W, S, f'%at.b{v}', mask)}",
            f"  %ab{v} = fmul <{W} x {T}> %a.all, %b{v}",
            f"  %sum{v}.next = fadd <{W} x {T}> %sum{v}, %ab{v}",
        ]
        parts["stores"].append(
            f"  call void @llvm.masked.store.{S}.p0(<{W} x {T}> %sum{v}, ptr %at.out{v}, i32 1, <{W} x i1> %mask{v})"
            if mask else f"  store <{W} x {T}> %sum{v}, ptr %at.out{v}, align 1"
        )
    block_bytes = vectors * W * np.dtype(dtype).itemsize
    for at in [*range(0, block_bytes, CACHE_LINE), block_bytes - 1] if every_line else [0]:
        parts["prefetches"] += [
            f"  %pf.at{at} = getelementptr i8, ptr %pf.row, i64 {at}",
            f"  call void @llvm.prefetch.p0(ptr %pf.at{at}, i32 0, i32 3, i32 1)",
        ]
    body = {name: "\n".join(lines) for name, lines in parts.items()}
    suffix = ("_onto" if onto else "") + ("" if masked else "_whole")
    return _KERNEL.format(T=T, W=W, S=S, V=vectors, block=W * vectors, suffix=suffix, ahead=PREFETCH_AHEAD, **body)


def _load(T: str, W: int, S: str, at: str, mask: str | None) -> str:
    """A vector load from ``at``: masked to ``mask`` (zeros elsewhere), or plain."""
    if mask is None:
        return f"load <{W} x {T}>, ptr {at}, align 1"
    return f"call <{W} x {T}> @llvm.masked.load.{S}.p0(ptr {at}, i32 1, <{W} x i1> {mask}, <{W} x {T}> zeroinitializer)"


def blocking_for(features: str) -> Blocking:
    """The blocking for a CPU with ``features`` (llvm's ``+avx512f,...``). With AVX-512, a block holds MLP's 100
    hidden units, so a product gathers each row of B once where blocks of 64 columns gathered it twice."""
    return BLOCKING["avx512" if "+avx512f" in features.split(",") else "avx2"]


def module_ir(blocking: Blocking) -> str:
    """Every kernel: each precision, with 1 to ``blocking.vectors`` vectors a block, from zero and onto ``out``, and
    the intrinsics they call."""
    declarations = [
        f"declare <{W} x {T}> @llvm.masked.load.{S}.p0(ptr, i32, <{W} x i1>, <{W} x {T}>)\n"
        f"declare void @llvm.masked.store.{S}.p0(<{W} x {T}>, ptr, i32, <{W} x i1>)"
        for T, W, S in IR_TYPES.values()
    ]
    kernels = [
        kernel_ir(dtype, v, onto, masked, blocking.every_line) for dtype, v, onto, masked in _variants(blocking.vectors)
    ]
    prefetch = "declare void @llvm.prefetch.p0(ptr, i32, i32, i32)"
    return "\n".join([*declarations, prefetch, *kernels])


def _variants(vectors: int) -> list[tuple[np.dtype[Any], int, bool, bool]]:
    """Each kernel's (dtype, vectors, onto, masked): masked ones of 1 to ``vectors`` vectors for the columns after
    the whole blocks, and the whole blocks' unmasked kernel."""
    return [
        (dtype, v, onto, v < vectors or masked)
        for dtype in IR_TYPES for v in range(1, vectors + 1) for onto in (False, True)
        for masked in ((True,) if v < vectors else (True, False))
    ]


class _Compiled:
    """The kernels compiled for a CPU, with the engine that holds their machine code."""

    def __init__(self, cpu: str | None = None, features: str | None = None) -> None:
        import llvmlite.binding as llvm

        llvm.initialize_native_target()
        llvm.initialize_native_asmprinter()
        features = llvm.get_host_cpu_features().flatten() if features is None else features
        self.blocking = blocking_for(features)
        module = llvm.parse_assembly(module_ir(self.blocking))
        module.triple = llvm.get_process_triple()
        module.verify()
        machine = llvm.Target.from_triple(module.triple).create_target_machine(
            cpu=llvm.get_host_cpu_name() if cpu is None else cpu, features=features, opt=3,
        )
        self.assembly = functools.partial(machine.emit_assembly, module)
        self.engine = llvm.create_mcjit_compiler(module, machine)
        self.engine.finalize_object()
        pointer, integer = ctypes.c_void_p, ctypes.c_int64
        arguments = (integer, pointer, pointer, pointer, pointer, integer, integer, integer, integer, pointer)
        signature = ctypes.CFUNCTYPE(None, *arguments)
        self.kernels = {
            (dtype, v, onto, masked): signature(self.engine.get_function_address(
                f"rows_times_dense_{IR_TYPES[dtype][0]}_{v}{'_onto' if onto else ''}{'' if masked else '_whole'}"
            ))
            for dtype, v, onto, masked in _variants(self.blocking.vectors)
        }

    def __call__(self, A: Any, B: np.ndarray, onto: np.ndarray | None = None) -> np.ndarray:
        """``A @ B`` for a CSR A with int32 indices (``A.indices`` and ``A.indptr``) and a B of A's dtype, float32 or
        float64, whose rows are contiguous (C-ordered, or with its rows padded): the columns in whole blocks,
        then the rest in as few vectors as hold it. With ``onto`` (C-ordered, A's rows by B's columns):
        ``onto += A @ B``, each row's additions after those already in ``onto``, in place."""
        n_columns, lanes, vectors = B.shape[1], IR_TYPES[A.dtype][1], self.blocking.vectors
        out = np.empty((A.shape[0], n_columns), dtype=A.dtype) if onto is None else onto
        whole = n_columns - n_columns % (lanes * vectors)
        spans = [(vectors, 0, whole, False), (-(-(n_columns - whole) // lanes), whole, n_columns, True)]
        operands = (A.indptr.ctypes.data, A.indices.ctypes.data, A.data.ctypes.data, B.ctypes.data)
        B_stride, out_at = B.strides[0] // B.itemsize, out.ctypes.data
        for span_vectors, start, stop, masked in spans:
            if stop > start:
                kernel = self.kernels[A.dtype, span_vectors, onto is not None, masked]
                kernel(A.shape[0], *operands, B_stride, n_columns, start, stop, out_at)
        return out


@functools.cache
def rows_times_dense() -> Callable[[Any, np.ndarray], np.ndarray] | None:
    """The kernels for this CPU, as one function of (CSR A, B); None without llvmlite (the ``fast`` extra), or with
    one older than 0.45, whose LLVM reads no opaque pointers."""
    try:
        return _Compiled()
    except (ImportError, RuntimeError):  # no fast extra; or an llvmlite whose LLVM cannot parse the kernels
        return None
