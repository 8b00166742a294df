// The function declarations of DRA's CEL environment that this package
// implements: CEL's standard functions (matches() included), Kubernetes'
// quantity, semver, IP, CIDR, URL, format and regex (find, findAll)
// libraries, the strings extension (version 2, strings.quote and format
// included) and lists.range, each as
// overloads with static parameter and result types; the lists functions
// whose result types follow their arguments' are typed by GenericListCall,
// and Kubernetes' authz library (typed only: no value of its types exists).
//
// Thread-safety: immutable tables built on first use.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "pkg/cel/type.h"

namespace ksched::cel {

struct Overload {
  bool member = false;
  std::vector<Type> params;  // receiver first for member overloads
  Type result;
};

// The overloads of a function, or nullptr when it is not one of ours.
const std::vector<Overload>* FindOverloads(std::string_view name);

// The functions over lists whose types depend on their arguments' (Kubernetes'
// lists library and cel-go's lists extension: sort(list(T)) is list(T)),
// given the receiver's type first. False when `name` with this receiver is
// not one of them; otherwise *result is the call's type, or nullopt when no
// overload matches. Where several overloads match a dyn argument with
// different results, the result is dyn, as in cel-go's checker.
bool GenericListCall(const std::string& name, const std::vector<Type>& types, std::optional<Type>* result);

}  // namespace ksched::cel
