// grpc-echo-server: the gRPC C++ peer of Pushwire's unary benchmark (Scripts/bench).
// A callback-API unary echo on 127.0.0.1, the port given or chosen by the kernel; prints
// "listening on 127.0.0.1:PORT" and serves until killed.
//   grpc-echo-server [port]
#include <grpcpp/grpcpp.h>

#include <cstdio>
#include <memory>
#include <string>

#include "echo.grpc.pb.h"

namespace {

class EchoService final : public pushwirebench::Echo::CallbackService {
  grpc::ServerUnaryReactor* Unary(grpc::CallbackServerContext* context, const pushwirebench::EchoRequest* request,
                                  pushwirebench::EchoResponse* response) override {
    response->set_payload(request->payload());
    auto* reactor = context->DefaultReactor();
    reactor->Finish(grpc::Status::OK);
    return reactor;
  }
};

}  // namespace

int main(int argc, char** argv) {
  std::string address = std::string("127.0.0.1:") + (argc > 1 ? argv[1] : "0");
  EchoService service;
  int port = 0;
  grpc::ServerBuilder builder;
  builder.AddListeningPort(address, grpc::InsecureServerCredentials(), &port);
  builder.RegisterService(&service);
  std::unique_ptr<grpc::Server> server = builder.BuildAndStart();
  if (!server || port == 0) {
    std::fprintf(stderr, "grpc-echo-server: cannot listen on %s\n", address.c_str());
    return 1;
  }
  std::printf("listening on 127.0.0.1:%d\n", port);
  std::fflush(stdout);
  server->Wait();
  return 0;
}
