"""The bot's own bare-metal runner: start-up code, linker script and ``main`` for QEMU's ``mps3-an547``.

Memory map (QEMU 7.2's ``mps3-an547``, Arm's AN547 SSE-300 FPGA image): the
reset vector is fetched from the secure ITCM alias ``0x10000000`` (512 KiB,
code), the secure SRAM alias ``0x11000000`` (2 MiB) holds read-only data (the
linked ``.pte``), the secure DTCM alias ``0x30000000`` (512 KiB) holds data,
bss, newlib's heap and, at its top, the stack: librdimon's ``_sbrk`` refuses
to grow the heap past the stack pointer, so the heap must lie below it.

The start-up code enables the FPU and MVE (CPACR CP10/CP11), zeroes bss,
opens the semihosting handles (librdimon), runs the C++ init array (kernels
register in static initialisers) and calls ``main``.  A fault prints
``ET_FAULT`` over semihosting and stops QEMU.

One inference is timed with SysTick on the processor clock (QEMU's AN547
runs it at 32 MHz); under ``-icount shift=0`` one instruction takes 1 ns of
virtual time, so one tick is 31.25 instructions (the count's resolution).

The runner prints one line per fact (the protocol :mod:`bot.modelrun.qemu`
reads): ``ET_BOOT``, ``ET_LOAD_FAIL <error>`` or ``ET_LOADED``,
``ET_EXEC_FAIL <error>`` or ``ET_TICKS <n>``, one ``ET_OUT <k> <scalar
type> <sizes> <hex bytes>`` per output, ``ET_DONE``.  Inputs are the fixed
values of :func:`bot.modelrun.inputs.value` (the same rule in C here).

Two flavours of ``main``: ``executorch`` for a pack holding ExecuTorch's
runtime (Program, Method, BufferDataLoader, MemoryManager: ExecuTorch's
runtime/executor/program.h and method.h at v1.4.1), ``sample`` for the small
runtime of the bot's sample packs (:mod:`bot.sample.packgen`).
"""

from __future__ import annotations

#: Processor clock of QEMU's mps3-an547 (Hz) and so instructions per SysTick tick under -icount shift=0.
CPU_HZ = 32_000_000
INSTRUCTIONS_PER_TICK = 1e9 / CPU_HZ

LINKER_SCRIPT = """\
/* mps3-an547 (QEMU): code in secure ITCM, read-only data in secure SRAM, data/heap/stack in secure DTCM. */
MEMORY
{
  ITCM (rx)  : ORIGIN = 0x10000000, LENGTH = 512K
  SRAM (rx)  : ORIGIN = 0x11000000, LENGTH = 2M
  DTCM (rwx) : ORIGIN = 0x30000000, LENGTH = 512K
}
ENTRY(Reset_Handler)
__stack_size = 0x10000;
SECTIONS
{
  .text : {
    KEEP(*(.isr_vector))
    *(.text*)
    KEEP(*(.init)) KEEP(*(.fini))
  } > ITCM
  .ARM.extab : { *(.ARM.extab* .gnu.linkonce.armextab.*) } > ITCM
  .ARM.exidx : { __exidx_start = .; *(.ARM.exidx* .gnu.linkonce.armexidx.*) __exidx_end = .; } > ITCM
  .rodata : { *(.rodata*) . = ALIGN(16); } > SRAM
  .preinit_array : { PROVIDE_HIDDEN(__preinit_array_start = .); KEEP(*(.preinit_array*)) PROVIDE_HIDDEN(__preinit_array_end = .); } > SRAM
  .init_array : { PROVIDE_HIDDEN(__init_array_start = .); KEEP(*(SORT(.init_array.*))) KEEP(*(.init_array*)) PROVIDE_HIDDEN(__init_array_end = .); } > SRAM
  .fini_array : { PROVIDE_HIDDEN(__fini_array_start = .); KEEP(*(SORT(.fini_array.*))) KEEP(*(.fini_array*)) PROVIDE_HIDDEN(__fini_array_end = .); } > SRAM
  .data : { . = ALIGN(8); *(.data*) . = ALIGN(8); } > DTCM
  .bss (NOLOAD) : { . = ALIGN(8); __bss_start__ = .; *(.bss*) *(COMMON) . = ALIGN(8); __bss_end__ = .; } > DTCM
  . = ALIGN(8);
  end = .; PROVIDE(__end__ = .);
  __stack_top = ORIGIN(DTCM) + LENGTH(DTCM);
  __stack_limit = __stack_top - __stack_size;
  ASSERT(end <= __stack_limit, "data, bss and heap do not fit below the stack in DTCM")
}
"""

STARTUP_C = r"""
/* Start-up code of the bot's runner for QEMU mps3-an547 (Cortex-M55). */
#include <stdint.h>
extern uint32_t __stack_top, __bss_start__, __bss_end__;
extern void __libc_init_array(void);
extern void initialise_monitor_handles(void);
extern int main(void);
extern void exit(int);
volatile uint32_t et_systick_wraps;

void _init(void) {}
void _fini(void) {}

static void semihost(uint32_t op, const void *arg) {
  register uint32_t r0 __asm__("r0") = op;
  register const void *r1 __asm__("r1") = arg;
  __asm__ volatile("bkpt 0xAB" : "+r"(r0) : "r"(r1) : "memory");
}

void Fault_Handler(void) {
  semihost(0x04, "ET_FAULT a processor fault (HardFault/MemManage/BusFault/UsageFault)\n");
  semihost(0x18, (const void *)0x20023); /* SYS_EXIT, ADP_Stopped_RunTimeErrorUnknown */
  for (;;) {}
}
void SysTick_Handler(void) { et_systick_wraps++; }
void Reset_Handler(void) {
  *(volatile uint32_t *)0xE000ED88 |= (0xFu << 20); /* CPACR: CP10, CP11 full access (FPU, MVE) */
  __asm__ volatile("dsb\n isb");
  for (uint32_t *p = &__bss_start__; p < &__bss_end__; ++p) *p = 0;
  initialise_monitor_handles();
  __libc_init_array();
  exit(main());
}
__attribute__((section(".isr_vector"), used)) void *const et_vectors[16] = {
  &__stack_top, (void *)Reset_Handler, (void *)Fault_Handler, (void *)Fault_Handler,
  (void *)Fault_Handler, (void *)Fault_Handler, (void *)Fault_Handler, 0, 0, 0, 0,
  (void *)Fault_Handler, (void *)Fault_Handler, 0, (void *)Fault_Handler, (void *)SysTick_Handler,
};
"""

#: The .pte linked in as bytes (aligned for the flatbuffer's 16-byte tensors and ExecuTorch's segments).
PTE_ASM = """\
  .section .rodata.et_model, "a"
  .balign 64
  .global et_model_pte
et_model_pte:
  .incbin "{path}"
  .global et_model_pte_end
et_model_pte_end:
  .byte 0
"""

COMMON_H = r"""
/* Shared by both runner flavours: fixed inputs, the SysTick timer, hex printing. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>
extern "C" const uint8_t et_model_pte[];
extern "C" const uint8_t et_model_pte_end[];
extern "C" volatile uint32_t et_systick_wraps;

/* The fixed input value of element i of input k (bot.modelrun.inputs.value). */
static inline int32_t et_fixed(int k, uint32_t i) { return (int32_t)((i * 7u + (uint32_t)k * 3u) % 17u) - 8; }

static void et_fill(int scalar_type, void *data, uint32_t numel, int k) {
  for (uint32_t i = 0; i < numel; ++i) {
    int32_t v = et_fixed(k, i);
    switch (scalar_type) {
      case 0: ((uint8_t *)data)[i] = (uint8_t)(v + 8); break;
      case 1: ((int8_t *)data)[i] = (int8_t)v; break;
      case 2: ((int16_t *)data)[i] = (int16_t)v; break;
      case 3: ((int32_t *)data)[i] = v; break;
      case 4: ((int64_t *)data)[i] = v; break;
      case 6: ((float *)data)[i] = (float)v * 0.25f; break;
      case 7: ((double *)data)[i] = (double)v * 0.25; break;
      case 11: ((uint8_t *)data)[i] = (uint8_t)(v & 1); break;
      default: break;
    }
  }
}

#define SYST_CSR (*(volatile uint32_t *)0xE000E010)
#define SYST_RVR (*(volatile uint32_t *)0xE000E014)
#define SYST_CVR (*(volatile uint32_t *)0xE000E018)
static void et_timer_start(void) {
  SYST_RVR = 0xFFFFFFu; SYST_CVR = 0; SYST_CSR = 7u;
  while (SYST_CVR == 0) {}  /* the counter reads 0 until its first reload from RVR */
  et_systick_wraps = 0;
}
static uint64_t et_timer_now(void) {
  uint32_t w, v;
  do { w = et_systick_wraps; v = SYST_CVR; } while (w != et_systick_wraps);
  return (uint64_t)w * 0x1000000ull + (0xFFFFFFu - v);
}

static void et_print_tensor(int k, int scalar_type, const int32_t *sizes, int ndim, const void *data, uint32_t nbytes) {
  printf("ET_OUT %d %d ", k, scalar_type);
  for (int d = 0; d < ndim; ++d) printf(d ? ",%ld" : "%ld", (long)sizes[d]);
  if (ndim == 0) printf("-");
  printf(" ");
  const uint8_t *b = (const uint8_t *)data;
  for (uint32_t i = 0; i < nbytes; ++i) printf("%02x", b[i]);
  if (nbytes == 0) printf("-");
  printf("\n");
}
static void et_print_error(const char *what, const char *msg) {
  printf("%s ", what);
  for (const char *p = msg; *p; ++p) putchar(*p == '\n' ? ' ' : *p);
  printf("\n");
}
"""

RUNNER_SAMPLE = r"""
/* main() for the sample packs' small runtime (its C API in src/runtime/executor/program.cpp). */
#include "et_runner_common.h"
extern "C" {
int et_sample_load(const uint8_t *data, uint32_t size);
const char *et_sample_error(void);
int et_sample_count(int outputs);
int et_sample_tensor(int outputs, int k, int *scalar_type, int *ndim, const int32_t **sizes, void **data,
                     uint32_t *nbytes, uint32_t *numel);
int et_sample_execute(void);
}
int main(void) {
  printf("ET_BOOT\n");
  if (et_sample_load(et_model_pte, (uint32_t)(et_model_pte_end - et_model_pte)) != 0) {
    et_print_error("ET_LOAD_FAIL", et_sample_error());
    return 1;
  }
  printf("ET_LOADED\n");
  for (int k = 0; k < et_sample_count(0); ++k) {
    int st, nd; const int32_t *sz; void *d; uint32_t nb, ne;
    et_sample_tensor(0, k, &st, &nd, &sz, &d, &nb, &ne);
    et_fill(st, d, ne, k);
  }
  et_timer_start();
  uint64_t t0 = et_timer_now();
  int rc = et_sample_execute();
  uint64_t t1 = et_timer_now();
  if (rc != 0) { et_print_error("ET_EXEC_FAIL", et_sample_error()); return 1; }
  printf("ET_TICKS %llu\n", (unsigned long long)(t1 - t0));
  for (int k = 0; k < et_sample_count(1); ++k) {
    int st, nd; const int32_t *sz; void *d; uint32_t nb, ne;
    et_sample_tensor(1, k, &st, &nd, &sz, &d, &nb, &ne);
    et_print_tensor(k, st, sz, nd, d, nb);
  }
  printf("ET_DONE\n");
  return 0;
}
"""

RUNNER_EXECUTORCH = r"""
/* main() for ExecuTorch's runtime (runtime/executor/program.h, method.h; extension-free). */
#include "et_runner_common.h"
#include <executorch/runtime/executor/program.h>
#include <executorch/runtime/executor/method.h>
#include <executorch/runtime/executor/memory_manager.h>
#include <executorch/runtime/core/memory_allocator.h>
#include <executorch/runtime/core/hierarchical_allocator.h>
#include <executorch/runtime/core/data_loader.h>
#include <executorch/runtime/platform/runtime.h>
#include <executorch/runtime/core/exec_aten/exec_aten.h>

using namespace executorch::runtime;

namespace {
/* A DataLoader over the linked bytes (ExecuTorch's runtime/core/data_loader.h interface). */
class LinkedLoader final : public DataLoader {
 public:
  LinkedLoader(const uint8_t *d, size_t n) : d_(d), n_(n) {}
  Result<FreeableBuffer> load(size_t offset, size_t size, const SegmentInfo &) const override {
    if (offset > n_ || size > n_ - offset) return Error::InvalidArgument;
    return FreeableBuffer(d_ + offset, size, nullptr);
  }
  Result<size_t> size() const override { return n_; }
 private:
  const uint8_t *d_;
  size_t n_;
};
alignas(16) uint8_t method_pool[256 * 1024];
alignas(16) uint8_t planned_pool[128 * 1024];
alignas(16) uint8_t temp_pool[32 * 1024];
const char *err_name(Error e) {
  static char buf[48];
  snprintf(buf, sizeof buf, "Error 0x%x", (unsigned)e);
  return buf;
}
}  // namespace

extern "C" void et_pal_emit_log_message(et_timestamp_t, et_pal_log_level_t level, const char *file, const char *,
                                        size_t line, const char *msg, size_t) {
  printf("ET_LOG %c %s:%u %s\n", (char)level, file, (unsigned)line, msg);
}

int main(void) {
  printf("ET_BOOT\n");
  runtime_init();
  LinkedLoader loader(et_model_pte, (size_t)(et_model_pte_end - et_model_pte));
  Result<Program> program = Program::load(&loader, Program::Verification::Minimal);
  if (!program.ok()) { et_print_error("ET_LOAD_FAIL Program::load:", err_name(program.error())); return 1; }
  Result<const char *> name = program->get_method_name(0);
  if (!name.ok()) { et_print_error("ET_LOAD_FAIL get_method_name:", err_name(name.error())); return 1; }
  Result<MethodMeta> meta = program->method_meta(*name);
  if (!meta.ok()) { et_print_error("ET_LOAD_FAIL method_meta:", err_name(meta.error())); return 1; }
  MemoryAllocator method_allocator(sizeof(method_pool), method_pool);
  MemoryAllocator temp_allocator(sizeof(temp_pool), temp_pool);
  Span<uint8_t> spans[8];
  size_t n_planned = meta->num_memory_planned_buffers(), used = 0;
  if (n_planned > 8) { et_print_error("ET_LOAD_FAIL", "more than 8 planned buffers"); return 1; }
  for (size_t i = 0; i < n_planned; ++i) {
    size_t sz = (size_t)meta->memory_planned_buffer_size(i).get();
    if (used + sz > sizeof(planned_pool)) { et_print_error("ET_LOAD_FAIL", "planned buffers exceed the pool"); return 1; }
    spans[i] = Span<uint8_t>(planned_pool + used, sz);
    used += (sz + 15) & ~(size_t)15;
  }
  HierarchicalAllocator planned(Span<Span<uint8_t>>(spans, n_planned));
  MemoryManager memory(&method_allocator, &planned, &temp_allocator);
  Result<Method> method = program->load_method(*name, &memory);
  if (!method.ok()) { et_print_error("ET_LOAD_FAIL load_method:", err_name(method.error())); return 1; }
  printf("ET_LOADED\n");
  for (size_t k = 0; k < method->inputs_size(); ++k) {
    const EValue &in = method->get_input(k);
    if (!in.isTensor()) continue;
    executorch::aten::Tensor t = in.toTensor();
    if (t.const_data_ptr() == nullptr) { et_print_error("ET_LOAD_FAIL", "an input tensor has no memory"); return 1; }
    et_fill((int)t.scalar_type(), t.mutable_data_ptr(), (uint32_t)t.numel(), (int)k);
  }
  et_timer_start();
  uint64_t t0 = et_timer_now();
  Error rc = method->execute();
  uint64_t t1 = et_timer_now();
  if (rc != Error::Ok) { et_print_error("ET_EXEC_FAIL execute:", err_name(rc)); return 1; }
  printf("ET_TICKS %llu\n", (unsigned long long)(t1 - t0));
  for (size_t k = 0; k < method->outputs_size(); ++k) {
    const EValue &out = method->get_output(k);
    if (!out.isTensor()) continue;
    executorch::aten::Tensor t = out.toTensor();
    int32_t sizes[16];
    int nd = (int)t.dim() < 16 ? (int)t.dim() : 16;
    for (int d = 0; d < nd; ++d) sizes[d] = (int32_t)t.size(d);
    et_print_tensor((int)k, (int)t.scalar_type(), sizes, nd, t.const_data_ptr(), (uint32_t)t.nbytes());
  }
  printf("ET_DONE\n");
  return 0;
}
"""
