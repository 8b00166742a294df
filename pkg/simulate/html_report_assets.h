// The HTML report's inline style sheet and script (html_report.h): the
// page loads nothing else.
//
// The script makes every <table class="sortable"> sortable by a click (or
// Enter) on a header cell: rows order by each cell's data-v attribute,
// else its text; a header with data-type="num" compares numbers (a cell
// without one sorts below every number). The first click sorts ascending,
// the next descending; equal keys keep their current order. The sorted
// header carries aria-sort.
#pragma once

namespace ksched::simulate {

extern const char kHtmlReportStyle[];
extern const char kHtmlReportScript[];

}  // namespace ksched::simulate
