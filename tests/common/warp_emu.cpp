/*
 * cuda/common/warp_emu.h: the 32 lanes of a warp as coroutines on this thread.
 * Rounds alternate between lanes 0..31 and 31..0, so that a missing
 * __syncwarp (a lane reading what another writes in the same round)
 * shows.  On x86-64 a switch saves the callee-saved registers, the stack
 * pointer and the return address only (swapcontext makes a system call
 * each time, and a code-block makes thousands of switches); elsewhere
 * ucontext does it.
 */
#include <stdint.h>
#include <string.h>
#include <ucontext.h>

#include "cuda/common/warp_emu.h"

static int cur, done[32];
static std::function<void(unsigned)> body;
static char stacks[32][192 * 1024] __attribute__((aligned(16)));
/* A warp operation's values, in one of two tables taken in turn by each
 * lane's operations: a lane that has read one operation's values writes
 * its next one's into the other table, which no lane still reads, so one
 * switch a lane suffices for an operation. */
static unsigned long long exchange[2][32];
static unsigned phase[32];

#if defined(__x86_64__)
/* A switch stores the callee-saved registers, the stack pointer and the
 * return address in `save` and jumps into `load`: an indirect jump, which
 * the branch predictor learns (every lane resumes in park), where a ret
 * on another stack would be mispredicted every time. */
typedef struct {
    unsigned long long rsp, rbp, rbx, r12, r13, r14, r15, rip;
} lane_regs;
static lane_regs main_regs, lane_state[32];
extern "C" void warp_emu_switch(lane_regs *save, const lane_regs *load);
__asm__(".text\n"
        ".globl warp_emu_switch\n"
        ".type warp_emu_switch, @function\n"
        "warp_emu_switch:\n"
        "  movq (%rsp), %rax\n"
        "  movq %rax, 56(%rdi)\n"
        "  leaq 8(%rsp), %rax\n"
        "  movq %rax, 0(%rdi)\n"
        "  movq %rbp, 8(%rdi)\n"
        "  movq %rbx, 16(%rdi)\n"
        "  movq %r12, 24(%rdi)\n"
        "  movq %r13, 32(%rdi)\n"
        "  movq %r14, 40(%rdi)\n"
        "  movq %r15, 48(%rdi)\n"
        "  movq 0(%rsi), %rsp\n"
        "  movq 8(%rsi), %rbp\n"
        "  movq 16(%rsi), %rbx\n"
        "  movq 24(%rsi), %r12\n"
        "  movq 32(%rsi), %r13\n"
        "  movq 40(%rsi), %r14\n"
        "  movq 48(%rsi), %r15\n"
        "  jmpq *56(%rsi)\n"
        ".size warp_emu_switch, .-warp_emu_switch\n");

static void park(void) {
    warp_emu_switch(&lane_state[cur], &main_regs);
}

static void start(void) {
    int lane = cur;
    body((unsigned)lane);
    done[lane] = 1;
    warp_emu_switch(&lane_state[lane], &main_regs); /* never resumed */
}

static void prepare(int l) {
    /* as if start had been called: the stack pointer 8 below a 16-byte
     * boundary */
    char *top = stacks[l] + sizeof stacks[l];
    memset(&lane_state[l], 0, sizeof lane_state[l]);
    lane_state[l].rsp = (unsigned long long)(uintptr_t)(top - 8);
    lane_state[l].rip = (unsigned long long)(uintptr_t)start;
}

static void resume(int l) {
    warp_emu_switch(&main_regs, &lane_state[l]);
}
#else
static ucontext_t main_ctx, lane_ctx[32];

static void park(void) {
    swapcontext(&lane_ctx[cur], &main_ctx);
}

static void start(int lane) {
    body((unsigned)lane);
    done[lane] = 1;
}

static void prepare(int l) {
    getcontext(&lane_ctx[l]);
    lane_ctx[l].uc_stack.ss_sp = stacks[l];
    lane_ctx[l].uc_stack.ss_size = sizeof stacks[l];
    lane_ctx[l].uc_link = &main_ctx;
    makecontext(&lane_ctx[l], (void (*)(void))start, 1, l);
}

static void resume(int l) {
    swapcontext(&main_ctx, &lane_ctx[l]);
}
#endif

void warp_emu_run(const std::function<void(unsigned)> &b) {
    body = b;
    for (int l = 0; l < 32; l++) {
        prepare(l);
        done[l] = 0;
        phase[l] = 0;
    }
    for (int left = 32, round = 0; left > 0; round++)
        for (int q = 0; q < 32; q++) {
            int l = round & 1 ? 31 - q : q;
            if (done[l])
                continue;
            cur = l;
            resume(l);
            left -= done[l];
        }
}

unsigned warp_emu_lane(void) {
    return (unsigned)cur;
}

void warp_emu_sync(void) {
    park();
}

/* This lane's table for its next operation, holding v; switches so that
 * every lane writes its own. */
static const unsigned long long *offer(unsigned long long v) {
    unsigned ph = phase[cur];
    phase[cur] = ph ^ 1;
    exchange[ph][cur] = v;
    park();
    return exchange[ph];
}

unsigned long long warp_emu_xchg(unsigned long long v, unsigned src) {
    return offer(v)[src];
}

uint32_t warp_emu_ballot(int p) {
    const unsigned long long *t = offer(p != 0);
    uint32_t r = 0;
    for (unsigned l = 0; l < 32; l++)
        r |= (uint32_t)t[l] << l;
    return r;
}

void warp_emu_gather(unsigned long long v, unsigned long long all[32]) {
    memcpy(all, offer(v), sizeof exchange[0]);
}
