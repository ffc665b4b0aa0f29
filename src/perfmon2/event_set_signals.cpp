// SPDX-License-Identifier: Apache-2.0
// Event sets' overflow signals: one handler per signal for the whole process, the sets it serves,
// and the signal masked for sets whose caller takes it.
#include <mutex>

#include "perfmon2/event_set_state.hpp"

namespace perfmon {

namespace {

// Handler-driven sets register here (as State*), so that the one signal handler finds them.
constexpr std::size_t kRegistrySlots = 32;
std::atomic<void*> registry[kRegistrySlots];
constexpr int kSignals = 65;         // signal numbers 1 to 64
struct sigaction chained[kSignals];  // what was installed before ours, by signal
bool installed[kSignals];
std::mutex install_mutex;
// Caller-driven sets of this thread, by signal, and whether the signal was unblocked before them.
thread_local int caller_sets[kSignals];
thread_local bool unblock_when_done[kSignals];

}  // namespace

void EventSets::State::signal_handler(int signo, siginfo_t* info, void* context) noexcept {
  const int saved_errno = errno;
  bool ours = false;
  for (std::atomic<void*>& slot : registry) {
    State* state = static_cast<State*>(slot.load(std::memory_order_acquire));
    if (state != nullptr && state->signo == signo && state->route_of(info->si_fd) != nullptr) {
      state->overflow(info->si_fd);
      ours = true;
      break;
    }
  }
  if (!ours) {
    const struct sigaction& previous = chained[signo];
    if ((previous.sa_flags & SA_SIGINFO) != 0 && previous.sa_sigaction != nullptr)
      previous.sa_sigaction(signo, info, context);
    else if (previous.sa_handler != SIG_DFL && previous.sa_handler != SIG_IGN && previous.sa_handler != nullptr)
      previous.sa_handler(signo);
  }
  errno = saved_errno;
}

void EventSets::State::take_signals() {
  State& s = *this;
  if (s.in_handler) {
    std::lock_guard<std::mutex> lock(install_mutex);
    if (!installed[s.signo]) {
      struct sigaction action {};
      action.sa_sigaction = State::signal_handler;
      action.sa_flags = SA_SIGINFO | SA_RESTART;
      sigemptyset(&action.sa_mask);
      if (::sigaction(s.signo, &action, &chained[s.signo]) != 0)
        throw Error(ErrorKind::System,
                    std::string("cannot install the event sets' signal handler: ") + std::strerror(errno) + ".", errno);
      installed[s.signo] = true;
    }
    std::size_t slot = 0;
    for (; slot < kRegistrySlots; ++slot) {
      void* expected = nullptr;
      if (registry[slot].compare_exchange_strong(expected, &s)) break;
    }
    if (slot == kRegistrySlots)
      throw Error(ErrorKind::Limit,
                  "too many handler-driven event sets in this process (" + std::to_string(kRegistrySlots) +
                      "); close one first.",
                  EBUSY);
  }
  sigset_t ours, before;
  sigemptyset(&ours);
  sigaddset(&ours, s.signo);
  // In the handler's thread the signal must come through; elsewhere it waits, blocked, until
  // service() or the caller takes it (and is unblocked again when the last such set goes). An
  // overflow_thread masks it itself.
  if (!s.signals_elsewhere) {
    ::pthread_sigmask(s.in_handler ? SIG_UNBLOCK : SIG_BLOCK, &ours, &before);
    if (!s.in_handler && caller_sets[s.signo]++ == 0) unblock_when_done[s.signo] = !sigismember(&before, s.signo);
  }
}

void EventSets::State::release_signals(std::unique_ptr<State>& state) noexcept {
  if (!state) return;
  for (std::atomic<void*>& slot : registry) {
    void* expected = state.get();
    slot.compare_exchange_strong(expected, nullptr);
  }
  // A signal already queued for a closed fd finds no set and is ignored; the handler stays.
  const int signo = state->signo;
  if (state->in_handler || state->signals_elsewhere || --caller_sets[signo] > 0) return;
  state.reset();  // no more overflows: the fds are closed
  sigset_t ours;
  sigemptyset(&ours);
  sigaddset(&ours, signo);
  const timespec none{};
  siginfo_t info;
  while (::sigtimedwait(&ours, &info, &none) == signo) {
  }
  if (unblock_when_done[signo]) ::pthread_sigmask(SIG_UNBLOCK, &ours, nullptr);
}

}  // namespace perfmon
