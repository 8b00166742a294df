// HtmlEscape: text made safe to place in HTML (or inline SVG) element
// content and in double- or single-quoted attribute values. Every string
// of the simulation's input (pod and node names, plugin reasons, which can
// quote taints and labels) goes through it: the input is untrusted.
//
// Thread-safety: pure function. Linear in the input.
#pragma once

#include <string>
#include <string_view>

namespace ksched::simulate {

// & < > " ' become character references; NUL and the other C0 controls
// except tab, line feed and carriage return (which HTML forbids) become
// U+FFFD. Other bytes pass unchanged: the page is UTF-8, and a browser
// shows a bad UTF-8 sequence as U+FFFD, never as markup.
std::string HtmlEscape(std::string_view text);

}  // namespace ksched::simulate
