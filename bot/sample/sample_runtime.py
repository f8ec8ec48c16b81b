"""C++ sources of the sample packs' small runtime (our code, not ExecuTorch's), for :mod:`bot.sample.packgen`.

It boots in QEMU's ``mps3-an547`` under the bot's runner (``run-model``):
reads the ``.pte`` linked into the image (ExecuTorch's program flatbuffer,
file identifier ``ET12``, field layout of schema/program.fbs; constants
inline in ``constant_buffer`` or in the constant segment located by the
``eh00`` extended header), allocates every tensor value, looks up each
operator of the plan in a registry that kernels fill in static initialisers
(as ExecuTorch's kernels do), and runs the first chain's ``KernelCall``
instructions in order.  Float32 ``aten::add.out`` and ``aten::mul.out``
are the kernels it ships (same-shape operands or a one-element operand);
anything else is refused with a message (``Missing operator ...``,
``unsupported value type ...``), which ``run-model`` reports as the
runtime's own error.
"""

KERNEL_H = r"""// The sample runtime's kernel interface (invented sample).
#include <cstdint>
namespace executorch { namespace sample {
// One value of the plan: kind 0 none, 1 int, 2 double, 3 bool, 4 tensor.
struct Value {
  int kind;
  int64_t i;
  double f;
  int scalar_type;
  int ndim;
  int32_t sizes[8];
  uint32_t numel;
  uint32_t nbytes;
  void* data;
};
// A kernel: args in the schema's order (out last); 0 on success, else writes a message into err.
typedef int (*Kernel)(Value** args, int nargs, char* err, unsigned errlen);
// Registers `name` ("aten::add.out"); called from static initialisers.
bool register_kernel(const char* name, Kernel kernel);
}}  // namespace executorch::sample
"""

EXECUTOR_CPP = r"""
// The sample runtime's executor (invented sample): loads an ET12 program and runs its KernelCalls.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <executorch/runtime/kernel/sample_kernel.h>

namespace executorch { namespace sample {
namespace {
struct Entry { const char* name; Kernel kernel; };
Entry g_registry[64];
int g_registered;
char g_error[160];

struct Fb {
  const uint8_t* d; uint32_t n; bool bad;
  uint32_t u32(uint32_t at) { if (at + 4 > n || at + 4 < at) { bad = true; return 0; } uint32_t v; memcpy(&v, d + at, 4); return v; }
  uint16_t u16(uint32_t at) { if (at + 2 > n || at + 2 < at) { bad = true; return 0; } uint16_t v; memcpy(&v, d + at, 2); return v; }
  uint8_t u8(uint32_t at) { if (at >= n) { bad = true; return 0; } return d[at]; }
  uint64_t u64(uint32_t at) { if (at + 8 > n || at + 8 < at) { bad = true; return 0; } uint64_t v; memcpy(&v, d + at, 8); return v; }
  uint32_t field(uint32_t t, int slot) {  // absolute position of a field, 0 when absent
    uint32_t vt = t - u32(t);
    uint16_t vs = u16(vt);
    uint32_t e = 4 + 2 * (uint32_t)slot;
    if (bad || e + 2 > vs) return 0;
    uint16_t off = u16(vt + e);
    return off ? t + off : 0;
  }
  uint32_t ref(uint32_t at) { return at + u32(at); }
  uint32_t table(uint32_t t, int slot) { uint32_t f = field(t, slot); return f ? ref(f) : 0; }
  uint32_t vec(uint32_t t, int slot, uint32_t* len) {
    uint32_t f = field(t, slot);
    if (!f) { *len = 0; return 0; }
    uint32_t v = ref(f);
    *len = u32(v);
    if (*len > n) { bad = true; *len = 0; }
    return v + 4;
  }
  uint32_t elem(uint32_t start, uint32_t i) { return ref(start + 4 * i); }
};

struct Call { Kernel kernel; int nargs; int32_t args[16]; };
Fb g_fb;
Value* g_values;
uint32_t g_nvalues;
int32_t g_inputs[16], g_outputs[16];
int g_ninputs, g_noutputs;
Call* g_calls;
uint32_t g_ncalls;

int fail(const char* msg, const char* detail = "") {
  snprintf(g_error, sizeof g_error, "%s%s", msg, detail);
  return 1;
}
uint32_t element_size(int st) {
  switch (st) { case 0: case 1: case 11: return 1; case 2: case 5: return 2; case 3: case 6: return 4; case 4: case 7: return 8; default: return 0; }
}
}  // namespace

bool register_kernel(const char* name, Kernel kernel) {
  if (g_registered >= 64) return false;
  g_registry[g_registered].name = name;
  g_registry[g_registered].kernel = kernel;
  ++g_registered;
  return true;
}
}}  // namespace executorch::sample

using namespace executorch::sample;

extern "C" const char* et_sample_error(void) { return g_error; }

extern "C" int et_sample_load(const uint8_t* data, uint32_t size) {
  Fb& fb = g_fb;
  fb.d = data; fb.n = size; fb.bad = false;
  if (size < 8 || memcmp(data + 4, "ET12", 4) != 0) return fail("not an ExecuTorch program (file identifier is not ET12)");
  uint32_t root = fb.ref(0), nplans;
  uint32_t plans = fb.vec(root, 1, &nplans);
  if (fb.bad || nplans == 0) return fail("the program has no execution plan");
  uint32_t plan = fb.elem(plans, 0);
  // constants: Program.constant_buffer (inline) or constant_segment + segments + the eh00 header's base
  uint32_t ncbuf, cbuf = fb.vec(root, 2, &ncbuf);
  uint64_t seg_base = 0;
  if (size >= 32 && memcmp(data + 8, "eh00", 4) == 0) seg_base = fb.u64(24);
  uint32_t cseg = fb.table(root, 5), nsegs, segs = fb.vec(root, 4, &nsegs);
  uint32_t ops_n, ops = fb.vec(plan, 6, &ops_n);
  uint32_t vals = fb.vec(plan, 2, &g_nvalues);
  if (fb.bad) return fail("the program's offsets point outside the file");
  g_values = (Value*)calloc(g_nvalues ? g_nvalues : 1, sizeof(Value));
  if (!g_values) return fail("out of memory for the values");
  for (uint32_t i = 0; i < g_nvalues; ++i) {
    uint32_t ev = fb.elem(vals, i);
    uint32_t tf = fb.field(ev, 0);
    uint8_t type = tf ? fb.u8(tf) : 0;
    uint32_t val = fb.table(ev, 1);
    Value& v = g_values[i];
    if (type == 0 || type == 1) { v.kind = 0; continue; }
    if (type == 2) { uint32_t f = fb.field(val, 0); v.kind = 1; v.i = f ? (int64_t)fb.u64(f) : 0; continue; }
    if (type == 3) { uint32_t f = fb.field(val, 0); v.kind = 3; v.i = f ? fb.u8(f) : 0; continue; }
    if (type == 4) { uint32_t f = fb.field(val, 0); uint64_t b = f ? fb.u64(f) : 0; memcpy(&v.f, &b, 8); v.kind = 2; continue; }
    if (type != 5) { char t[8]; snprintf(t, sizeof t, "%u", type); return fail("unsupported value type ", t); }
    v.kind = 4;
    uint32_t stf = fb.field(val, 0);
    v.scalar_type = stf ? fb.u8(stf) : 0;
    uint32_t nd, sizes = fb.vec(val, 2, &nd);
    if (nd > 8) return fail("a tensor has more than 8 dimensions");
    v.ndim = (int)nd; v.numel = 1;
    for (uint32_t d = 0; d < nd; ++d) { v.sizes[d] = (int32_t)fb.u32(sizes + 4 * d); v.numel *= (uint32_t)v.sizes[d]; }
    uint32_t es = element_size(v.scalar_type);
    if (!es) return fail("unsupported scalar type of a tensor");
    v.nbytes = v.numel * es;
    uint32_t dbf = fb.field(val, 5);
    uint32_t dbi = dbf ? fb.u32(dbf) : 0;
    if (dbi > 0) {  // a constant
      if (ncbuf > 0) {
        if (dbi >= ncbuf) return fail("a constant's buffer index is outside constant_buffer");
        uint32_t n, st = fb.vec(fb.elem(cbuf, dbi), 0, &n);
        if (n < v.nbytes) return fail("a constant buffer is smaller than its tensor");
        v.data = (void*)(data + st);
      } else {
        uint32_t sif = cseg ? fb.field(cseg, 0) : 0, si = sif ? fb.u32(sif) : 0, noff;
        uint32_t offs = cseg ? fb.vec(cseg, 1, &noff) : 0;
        if (!cseg || dbi >= noff || si >= nsegs) return fail("a constant's offset is outside the constant segment");
        uint32_t seg = fb.elem(segs, si), sof = fb.field(seg, 0);
        uint64_t at = seg_base + (sof ? fb.u64(sof) : 0) + fb.u64(offs + 8 * dbi);
        if (at + v.nbytes > size) return fail("a constant lies outside the file");
        v.data = (void*)(data + at);
      }
    } else {
      v.data = calloc(v.nbytes ? v.nbytes : 1, 1);
      if (!v.data) return fail("out of memory for a tensor");
    }
  }
  uint32_t n, at = fb.vec(plan, 3, &n);
  if (n > 16) return fail("more than 16 inputs");
  g_ninputs = (int)n;
  for (uint32_t k = 0; k < n; ++k) g_inputs[k] = (int32_t)fb.u32(at + 4 * k);
  at = fb.vec(plan, 4, &n);
  if (n > 16) return fail("more than 16 outputs");
  g_noutputs = (int)n;
  for (uint32_t k = 0; k < n; ++k) g_outputs[k] = (int32_t)fb.u32(at + 4 * k);
  Kernel kernels[32];
  if (ops_n > 32) return fail("more than 32 operators");
  for (uint32_t k = 0; k < ops_n; ++k) {
    uint32_t op = fb.elem(ops, k);
    char name[96];
    uint32_t s = fb.table(op, 0), o = fb.table(op, 1);
    uint32_t sl = s ? fb.u32(s) : 0, ol = o ? fb.u32(o) : 0;
    if (sl + ol + 2 > sizeof name || fb.bad) return fail("an operator name is too long");
    memcpy(name, data + s + 4, sl); name[sl] = 0;
    if (ol) { name[sl] = '.'; memcpy(name + sl + 1, data + o + 4, ol); name[sl + 1 + ol] = 0; }
    kernels[k] = nullptr;
    for (int r = 0; r < g_registered; ++r)
      if (strcmp(g_registry[r].name, name) == 0) kernels[k] = g_registry[r].kernel;
    if (!kernels[k]) return fail("Missing operator: ", name);
  }
  uint32_t nchains, chains = fb.vec(plan, 5, &nchains);
  if (nchains == 0) { g_ncalls = 0; return fb.bad ? fail("the program's offsets point outside the file") : 0; }
  uint32_t ninstr, instrs = fb.vec(fb.elem(chains, 0), 2, &ninstr);
  g_calls = (Call*)calloc(ninstr ? ninstr : 1, sizeof(Call));
  g_ncalls = ninstr;
  for (uint32_t k = 0; k < ninstr; ++k) {
    uint32_t ins = fb.elem(instrs, k), tf = fb.field(ins, 0);
    uint8_t type = tf ? fb.u8(tf) : 0;
    if (type != 1) { char t[8]; snprintf(t, sizeof t, "%u", type); return fail("unsupported instruction type ", t); }
    uint32_t kc = fb.table(ins, 1), oif = fb.field(kc, 0);
    uint32_t opi = oif ? fb.u32(oif) : 0, na, args = fb.vec(kc, 1, &na);
    if (opi >= ops_n || na > 16) return fail("a kernel call is malformed");
    g_calls[k].kernel = kernels[opi];
    g_calls[k].nargs = (int)na;
    for (uint32_t a = 0; a < na; ++a) {
      g_calls[k].args[a] = (int32_t)fb.u32(args + 4 * a);
      if ((uint32_t)g_calls[k].args[a] >= g_nvalues) return fail("a kernel argument is outside the values");
    }
  }
  if (fb.bad) return fail("the program's offsets point outside the file");
  return 0;
}

extern "C" int et_sample_count(int outputs) { return outputs ? g_noutputs : g_ninputs; }

extern "C" int et_sample_tensor(int outputs, int k, int* scalar_type, int* ndim, const int32_t** sizes, void** data,
                                uint32_t* nbytes, uint32_t* numel) {
  Value& v = g_values[outputs ? g_outputs[k] : g_inputs[k]];
  *scalar_type = v.scalar_type; *ndim = v.ndim; *sizes = v.sizes; *data = v.data; *nbytes = v.nbytes; *numel = v.numel;
  return v.kind == 4 ? 0 : 1;
}

extern "C" int et_sample_execute(void) {
  for (uint32_t k = 0; k < g_ncalls; ++k) {
    Value* args[16];
    for (int a = 0; a < g_calls[k].nargs; ++a) args[a] = &g_values[g_calls[k].args[a]];
    char err[120] = {0};
    if (g_calls[k].kernel(args, g_calls[k].nargs, err, sizeof err) != 0) {
      snprintf(g_error, sizeof g_error, "instruction %u: %s", (unsigned)k, err);
      return 1;
    }
  }
  return 0;
}
"""


def binary_kernel(op: str, expr: str, with_alpha: bool) -> str:
    """A float32 ``aten::OP.out`` kernel of the sample runtime computing ``expr`` (of ``x``, ``y``, ``alpha``)."""
    nargs = 4 if with_alpha else 3
    alpha = ("  float alpha = a[2]->kind == 1 ? (float)a[2]->i : (float)a[2]->f;\n" if with_alpha
             else "")
    return (
        f"// operator {op} (invented sample): float32 aten::{op}.out, same shapes or a one-element operand.\n"
        "#include <cstdio>\n#include <executorch/runtime/kernel/sample_kernel.h>\n"
        "namespace {\nusing executorch::sample::Value;\n"
        f"int {op}_out(Value** a, int n, char* err, unsigned len) {{\n"
        f"  // the emitter passes the out tensor, then the return value (the same tensor)\n"
        f"  if (n != {nargs} && n != {nargs + 1}) {{\n"
        f"    snprintf(err, len, \"{op}.out: %d arguments, expected {nargs}\", n); return 1;\n  }}\n"
        f"  Value *x = a[0], *y = a[1], *out = a[{nargs - 1}];\n"
        "  if (x->kind != 4 || y->kind != 4 || out->kind != 4 || x->scalar_type != 6 || y->scalar_type != 6 ||\n"
        "      out->scalar_type != 6) {\n"
        f"    snprintf(err, len, \"{op}.out: only float32 tensors are supported\"); return 1;\n  }}\n"
        "  if ((x->numel != out->numel && x->numel != 1) || (y->numel != out->numel && y->numel != 1)) {\n"
        f"    snprintf(err, len, \"{op}.out: shapes do not match\"); return 1;\n  }}\n"
        + alpha +
        "  const float* xs = (const float*)x->data; const float* ys = (const float*)y->data;\n"
        "  float* o = (float*)out->data;\n"
        "  for (unsigned i = 0; i < out->numel; ++i) {\n"
        "    float xv = xs[x->numel == 1 ? 0 : i], yv = ys[y->numel == 1 ? 0 : i];\n"
        f"    o[i] = {expr};\n  }}\n  return 0;\n}}\n"
        f"const bool registered = executorch::sample::register_kernel(\"aten::{op}.out\", {op}_out);\n}}\n")


#: Portable operator -> the source of its kernel (others keep a one-line placeholder).
KERNELS = {
    "add": binary_kernel("add", "xv + alpha * yv", True),
    "mul": binary_kernel("mul", "xv * yv", False),
}


#: The int8 Cortex-M operator of the sample packs: ``cortex_m::quantized_add.out(Tensor a, Tensor b, Tensor out)``,
#: a saturating int8 add (our own semantics), computed by the NN library's ``nn_sample_add_s8``
#: (:data:`NN_ADD_C`), so its component requires ``CMSIS:NN Lib`` as the real pack's Cortex-M operators do.
INT8_ADD_KERNEL = r"""// operator quantized_add (invented sample): int8 cortex_m::quantized_add.out through the NN library.
#include <cstdio>
#include <cstdint>
#include <executorch/runtime/kernel/sample_kernel.h>
extern "C" {
#include "nn_sample_functions.h"
}
namespace {
using executorch::sample::Value;
int quantized_add_out(Value** a, int n, char* err, unsigned len) {
  if (n != 3 && n != 4) { snprintf(err, len, "quantized_add.out: %d arguments, expected 3", n); return 1; }
  Value *x = a[0], *y = a[1], *out = a[2];
  if (x->kind != 4 || y->kind != 4 || out->kind != 4 || x->scalar_type != 1 || y->scalar_type != 1 ||
      out->scalar_type != 1) {
    snprintf(err, len, "quantized_add.out: only int8 tensors are supported"); return 1;
  }
  if (x->numel != out->numel || y->numel != out->numel) {
    snprintf(err, len, "quantized_add.out: shapes do not match"); return 1;
  }
  int rc = nn_sample_add_s8((const int8_t*)x->data, (const int8_t*)y->data, (int8_t*)out->data,
                            (int32_t)out->numel);
  if (rc != 0) { snprintf(err, len, "quantized_add.out: the NN library returned %d", rc); return 1; }
  return 0;
}
const bool registered = executorch::sample::register_kernel("cortex_m::quantized_add.out", quantized_add_out);
}
"""

#: The sample NN library's header (our own, CMSIS-NN-like: ``arm_nnfunctions.h`` plays this part there).
NN_HEADER = r"""/* The sample NN library (invented sample): int8 kernels for the sample packs' Cortex-M operators. */
#ifndef NN_SAMPLE_FUNCTIONS_H
#define NN_SAMPLE_FUNCTIONS_H
#include <stdint.h>
/* out[i] = saturate_s8(a[i] + b[i]) for i < n; returns 0, or -1 for a negative n. */
int nn_sample_add_s8(const int8_t *a, const int8_t *b, int8_t *out, int32_t n);
#endif
"""

#: Its one source: MVE (Helium) saturating adds 16 lanes at a time when the target has MVE
#: (``-mcpu=cortex-m55``: ``__ARM_FEATURE_MVE``), the scalar loop for the tail and otherwise.
NN_ADD_C = r"""/* nn_sample_add_s8 (invented sample). */
#include "nn_sample_functions.h"
#if defined(__ARM_FEATURE_MVE) && (__ARM_FEATURE_MVE & 1)
#include <arm_mve.h>
#endif
int nn_sample_add_s8(const int8_t *a, const int8_t *b, int8_t *out, int32_t n) {
  if (n < 0) return -1;
  int32_t i = 0;
#if defined(__ARM_FEATURE_MVE) && (__ARM_FEATURE_MVE & 1)
  for (; i + 16 <= n; i += 16) vst1q_s8(out + i, vqaddq_s8(vld1q_s8(a + i), vld1q_s8(b + i)));
#endif
  for (; i < n; ++i) {
    int32_t s = (int32_t)a[i] + (int32_t)b[i];
    out[i] = (int8_t)(s > 127 ? 127 : (s < -128 ? -128 : s));
  }
  return 0;
}
"""
