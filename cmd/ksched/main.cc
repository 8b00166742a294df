// build/ksched: the command with the in-tree plugins (ksched_main.h).
#include "cmd/ksched/ksched_main.h"

int main(int argc, char** argv) { return ksched::app::KschedMain(argc, argv); }
