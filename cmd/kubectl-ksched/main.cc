// kubectl-ksched: kubectl's plugin for ksched (`kubectl ksched why POD`,
// `kubectl ksched queue`, `kubectl ksched what-if -f pods.yaml`). See
// options.h, reach.h and whatif.h.
#include <iostream>
#include <string>
#include <vector>

#include "cmd/kubectl-ksched/options.h"
#include "cmd/kubectl-ksched/reach.h"
#include "cmd/kubectl-ksched/render.h"
#include "cmd/kubectl-ksched/whatif.h"

namespace kk = ksched::kubectl_ksched;

int main(int argc, char** argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  ksched::util::StatusOr<kk::Options> o = kk::ParseArgs(args);
  if (!o.ok()) {
    std::cerr << "error: " << o.status().message() << "\n";
    return 2;
  }
  if (o->help) {
    std::cout << kk::Usage(o->command);
    return 0;
  }
  if (o->command == "what-if") return kk::WhatIfMain(*o, std::cout, std::cerr);
  std::vector<std::pair<std::string, std::string>> query;
  if (o->command == "why") {
    std::string pod = o->pod;
    if (pod.find('/') == std::string::npos) {
      std::string ns = o->namespace_;
      if (ns.empty()) {
        ksched::util::StatusOr<ksched::client::RestConfig> user =
            kk::LoadUserConfig(*o, ksched::client::Environment::Process());
        if (user.ok()) ns = user->namespace_;
      }
      pod = (ns.empty() ? std::string("default") : ns) + "/" + pod;
    }
    query.emplace_back("pod", pod);
  }
  ksched::util::StatusOr<nlohmann::json> body = kk::FetchExplain(*o, query, std::cerr);
  if (!body.ok()) {
    std::cerr << "error: " << body.status().message() << "\n";
    return 1;
  }
  if (o->output == "json") {
    std::cout << body->dump(2) << "\n";
  } else if (o->command == "why") {
    std::cout << kk::RenderWhy(*body);
  } else {
    std::cout << kk::RenderQueue(*body);
  }
  return 0;
}
