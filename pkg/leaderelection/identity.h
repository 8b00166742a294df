// The holder identity kube-scheduler uses: "<hostname>_<random UUID>", so
// two replicas on one host, or a restarted one, never share an identity.
//
// Thread-safety: thread-safe.
#pragma once

#include <string>

namespace ksched::leaderelection {

// A random (version 4) UUID in its canonical 36-character form.
std::string NewUuid();

// gethostname() + "_" + NewUuid(); "ksched_<uuid>" if the host name is
// unavailable.
std::string DefaultIdentity();

}  // namespace ksched::leaderelection
