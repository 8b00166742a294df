// Kubernetes' name rules (k8s.io/apimachinery/pkg/util/validation, and the
// content package later releases moved the label-key checks to), as
// matchers and as the lists of messages apimachinery returns, so errors read
// like kube's. Config validation, label parsing and CEL's format library
// share them.
//
// Thread-safety: pure functions.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace ksched::util {

// ([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9], whole: a label key's name part
// and a non-empty label value. No length limit.
bool MatchesQualifiedNamePart(std::string_view s);

// [a-z0-9]([-a-z0-9]*[a-z0-9])?, whole; with `letter_first`, DNS-1035's
// [a-z]([-a-z0-9]*[a-z0-9])?. No length limit.
bool MatchesDnsLabel(std::string_view s, bool letter_first = false);

// DNS-1123 labels joined by dots. No length limit.
bool MatchesDnsSubdomain(std::string_view s);

// Whose words the messages use: util/validation's as of 1.34 (lengths in
// "characters", "a qualified name"), or the content package's (label keys'
// and values' lengths in "bytes", "a valid label key").
enum class NameWording { kValidation, kContent };

// Each returns the problems, empty when the value is valid.

// A label key / qualified name: an optional DNS-subdomain prefix and "/",
// then a name part of at most 63 characters.
std::vector<std::string> IsQualifiedName(std::string_view value, NameWording w = NameWording::kValidation);

// A label value: empty, or at most 63 characters of the name alphabet.
std::vector<std::string> IsValidLabelValue(std::string_view value, NameWording w = NameWording::kValidation);

// A lowercase RFC 1123 subdomain of at most 253 characters ("bytes" in the
// content package's wording).
std::vector<std::string> IsDNS1123Subdomain(std::string_view value, NameWording w = NameWording::kValidation);

// A lowercase RFC 1123 label of at most 63 characters.
std::vector<std::string> IsDNS1123Label(std::string_view value);

// A DNS-1035 label (starts with a letter) of at most 63 characters.
std::vector<std::string> IsDNS1035Label(std::string_view value);

}  // namespace ksched::util
