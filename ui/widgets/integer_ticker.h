// Axis ticks at whole numbers only (steps 1, 2, 5, 10, 20, …, no sub-ticks), for axes that count
// people or outputs.
#pragma once

#include "ui/widgets/qcustomplot_include.h"

namespace dpx::ui {

class IntegerTicker : public QCPAxisTicker {
protected:
    double getTickStep(const QCPRange& range) override;
    int getSubTickCount(double) override { return 0; }
};

}  // namespace dpx::ui
