// The files a public proxy for choosing ε is read from (issue #22; core/choosing/public_proxy.h):
//  - a shape file (plan on shape:FILE): one weight per bin, read with the one CSV reader — one
//    column of numbers, or two columns "bin,weight" (the weight is the last column); a first
//    record whose weight is not a number is a header. Weights may be fractional; negative,
//    non-numeric or missing weights are refused with line and column;
//  - a previous release (plan on release:FILE): a release CSV written by dpx / the window
//    (io/release/release_files.h, "bin,value[,lower,upper]"; a table release "A1,…,Ak,value,…").
//    Only the released values are read (the column "value"), never a truth; the bin labels of a
//    histogram release are read back (undoing the CSV-injection quote the writer adds) so that the
//    proxy can check the binning is the same.
// Files over 64 MiB are refused (a proxy has one number per bin).
#pragma once

#include <string>
#include <vector>

#include "core/base/expected.h"
#include "core/choosing/public_proxy.h"

namespace dpx::data {

struct ProxyFile {
    std::vector<double> weights;      // one per bin, in file order
    std::vector<std::string> labels;  // a release's bin labels (empty if it has none)
};

Expected<ProxyFile> readShapeFile(const std::string& path);
Expected<ProxyFile> readReleasedCounts(const std::string& path);

// Fills plan.weights (and a release's labels) for Shape and Release plans from plan.path; other
// plans are returned as they are.
Expected<PlanOn> loadPlanOnFile(PlanOn plan);

}  // namespace dpx::data
