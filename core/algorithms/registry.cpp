// The list of algorithms (issue #20). Each algorithm's file defines a function returning its
// singleton; add one line per algorithm here, in the order allAlgorithms() documents.
#include <algorithm>
#include <cctype>

#include "core/algorithms/algorithm.h"
#include "core/algorithms/registry_list.h"

namespace dpx {

const std::vector<const Algorithm*>& allAlgorithms() {
    static const std::vector<const Algorithm*> all = [] {
        std::vector<const Algorithm*> v;
        // Data-independent: the strategies answered by least squares (GreedyH and HDMM adapt theirs
        // to the workload, never to the data).
        for (const Algorithm* a :
             {&identityAlgorithm(), &h2Algorithm(), &hbAlgorithm(), &priveletAlgorithm(),
              &greedyHAlgorithm(), &hb2dAlgorithm(), &privelet2dAlgorithm(), &quadTreeAlgorithm(),
              &hdmmAlgorithm()}) {
            v.push_back(a);
        }
        // Data-dependent: Uniform (through its bias, 1-D and 2-D), then 1-D (AHP, MWEM and
        // DPCube also 2-D), then 2-D only.
        for (const Algorithm* a :
             {&uniformAlgorithm(), &dawaAlgorithm(), &ahpAlgorithm(), &mwemAlgorithm(),
              &phpAlgorithm(), &efpaAlgorithm(), &structureFirstAlgorithm(), &dpcubeAlgorithm(),
              &ugridAlgorithm(), &agridAlgorithm(), &dawa2dAlgorithm()}) {
            v.push_back(a);
        }
        return v;
    }();
    return all;
}

const Algorithm* findAlgorithm(std::string_view id) {
    const auto lower = [](std::string_view s) {
        std::string out(s);
        std::transform(out.begin(), out.end(), out.begin(),
                       [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
        return out;
    };
    const std::string wanted = lower(id);
    for (const Algorithm* a : allAlgorithms()) {
        if (lower(a->info().id) == wanted) {
            return a;
        }
    }
    return nullptr;
}

}  // namespace dpx
