// QCustomPlot's public header uses the Qt keywords (signals, slots, emit, foreach) that this
// project disables with QT_NO_KEYWORDS. Map them to the Q_ macros for that one include only.
#pragma once

#include <QtGlobal>

#define signals Q_SIGNALS
#define slots Q_SLOTS
#define emit Q_EMIT
#define foreach Q_FOREACH
#include <qcustomplot.h>
#undef signals
#undef slots
#undef emit
#undef foreach
