// grpc-echo-client: the gRPC C++ load generator for Pushwire's unary benchmark (Scripts/bench).
// Opens C channels (each with its own subchannel, so its own TCP connection) and keeps K unary
// calls in flight on each with the callback API, for a warm-up and then a measured duration.
// Prints one line: calls=N seconds=S rps=R mean_us=… p50_us=… p90_us=… p99_us=… max_us=… errors=E
//   grpc-echo-client <host:port> <channels> <in-flight per channel> <seconds> [warmup seconds]
#include <grpcpp/grpcpp.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "echo.grpc.pb.h"

namespace {

using Clock = std::chrono::steady_clock;

struct Shared {
  std::atomic<bool> stop{false};
  Clock::time_point measure_start;
  std::mutex mutex;
  std::condition_variable idle;
  int active = 0;
  std::atomic<long> errors{0};
};

// One in-flight sequence: a call, and when it ends, the next. Its callbacks never overlap, so
// its latency vector needs no lock.
struct Slot {
  pushwirebench::Echo::Stub* stub = nullptr;
  Shared* shared = nullptr;
  std::unique_ptr<grpc::ClientContext> context;
  pushwirebench::EchoRequest request;
  pushwirebench::EchoResponse response;
  Clock::time_point start;
  std::vector<double> latencies_us;

  void Issue() {
    context = std::make_unique<grpc::ClientContext>();
    start = Clock::now();
    stub->async()->Unary(context.get(), &request, &response, [this](grpc::Status status) { Done(status); });
  }

  void Done(const grpc::Status& status) {
    auto now = Clock::now();
    if (!status.ok()) shared->errors++;
    if (start >= shared->measure_start && !shared->stop.load()) {
      latencies_us.push_back(std::chrono::duration<double, std::micro>(now - start).count());
    }
    if (shared->stop.load()) {
      std::lock_guard<std::mutex> lock(shared->mutex);
      if (--shared->active == 0) shared->idle.notify_all();
      return;
    }
    Issue();
  }
};

}  // namespace

int main(int argc, char** argv) {
  if (argc < 5) {
    std::fprintf(stderr, "usage: grpc-echo-client <host:port> <channels> <in-flight> <seconds> [warmup seconds]\n");
    return 64;
  }
  std::string target = argv[1];
  int channels = std::atoi(argv[2]);
  int depth = std::atoi(argv[3]);
  double seconds = std::atof(argv[4]);
  double warmup = argc > 5 ? std::atof(argv[5]) : 1.0;
  if (channels <= 0 || depth <= 0 || seconds <= 0) {
    std::fprintf(stderr, "grpc-echo-client: channels, in-flight and seconds must be positive\n");
    return 64;
  }

  Shared shared;
  auto begin = Clock::now();
  shared.measure_start = begin + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(warmup));
  std::vector<std::unique_ptr<pushwirebench::Echo::Stub>> stubs;
  for (int c = 0; c < channels; c++) {
    grpc::ChannelArguments args;
    args.SetInt(GRPC_ARG_USE_LOCAL_SUBCHANNEL_POOL, 1);  // one TCP connection per channel
    args.SetInt("pushwirebench.channel", c);
    auto channel = grpc::CreateCustomChannel(target, grpc::InsecureChannelCredentials(), args);
    if (!channel->WaitForConnected(std::chrono::system_clock::now() + std::chrono::seconds(5))) {
      std::fprintf(stderr, "grpc-echo-client: cannot connect to %s\n", target.c_str());
      return 1;
    }
    stubs.push_back(pushwirebench::Echo::NewStub(channel));
  }
  std::vector<std::unique_ptr<Slot>> slots;
  for (int c = 0; c < channels; c++) {
    for (int k = 0; k < depth; k++) {
      auto slot = std::make_unique<Slot>();
      slot->stub = stubs[c].get();
      slot->shared = &shared;
      slot->latencies_us.reserve(1 << 16);
      slots.push_back(std::move(slot));
    }
  }
  shared.active = static_cast<int>(slots.size());
  for (auto& slot : slots) slot->Issue();

  std::this_thread::sleep_until(shared.measure_start +
                                std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(seconds)));
  shared.stop = true;
  auto measured_end = Clock::now();
  {
    std::unique_lock<std::mutex> lock(shared.mutex);
    shared.idle.wait_for(lock, std::chrono::seconds(10), [&] { return shared.active == 0; });
  }

  std::vector<double> all;
  for (auto& slot : slots) all.insert(all.end(), slot->latencies_us.begin(), slot->latencies_us.end());
  std::sort(all.begin(), all.end());
  double elapsed = std::chrono::duration<double>(measured_end - shared.measure_start).count();
  auto at = [&](double q) {
    if (all.empty()) return 0.0;
    size_t rank = static_cast<size_t>(q * all.size());
    return all[std::min(rank, all.size() - 1)];
  };
  double sum = 0;
  for (double v : all) sum += v;
  std::printf("calls=%zu seconds=%.3f rps=%.1f mean_us=%.1f p50_us=%.1f p90_us=%.1f p99_us=%.1f max_us=%.1f errors=%ld\n",
              all.size(), elapsed, all.size() / elapsed, all.empty() ? 0.0 : sum / all.size(), at(0.5), at(0.9),
              at(0.99), all.empty() ? 0.0 : all.back(), shared.errors.load());
  std::fflush(stdout);
  // Quick exit: in-flight callbacks may still reference the slots; nothing more to report.
  std::_Exit(0);
}
