// xsim_jump_context (context_switch.hpp): Boost.Context's jump_fcontext frame, x86-64 System V.
// The suspended context's frame, at its saved stack pointer: MXCSR (4 bytes), x87 control word (2), r12,
// r13, r14, r15, rbx, rbp, then the address to return to. Arguments: rdi = the context to resume, rsi =
// data; it returns {the context just suspended, data} in rax:rdx to whoever resumes it, which is also
// the first argument (rdi) of a context function entered for the first time.
#include "context_switch.hpp"

#if defined(__x86_64__) && !defined(_WIN32)
asm(R"(
  .text
  .globl xsim_jump_context
  .hidden xsim_jump_context
  .type xsim_jump_context, @function
  .p2align 4
xsim_jump_context:
  leaq -0x38(%rsp), %rsp
  stmxcsr (%rsp)
  fnstcw 0x4(%rsp)
  movq %r12, 0x8(%rsp)
  movq %r13, 0x10(%rsp)
  movq %r14, 0x18(%rsp)
  movq %r15, 0x20(%rsp)
  movq %rbx, 0x28(%rsp)
  movq %rbp, 0x30(%rsp)
  movq %rsp, %rax
  movq %rdi, %rsp
  movq 0x38(%rsp), %r8
  movl (%rsp), %ecx
  cmpl (%rax), %ecx
  jne 2f
  movzwl 0x4(%rsp), %ecx
  cmpw 0x4(%rax), %cx
  jne 2f
1:
  movq 0x8(%rsp), %r12
  movq 0x10(%rsp), %r13
  movq 0x18(%rsp), %r14
  movq 0x20(%rsp), %r15
  movq 0x28(%rsp), %rbx
  movq 0x30(%rsp), %rbp
  leaq 0x40(%rsp), %rsp
  movq %rsi, %rdx
  movq %rax, %rdi
  jmp *%r8
2:
  ldmxcsr (%rsp)
  fldcw 0x4(%rsp)
  jmp 1b
  .size xsim_jump_context, .-xsim_jump_context
)");
#endif
