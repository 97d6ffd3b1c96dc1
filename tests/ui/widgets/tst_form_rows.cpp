// FormRows (ui/widgets/form_rows.h): a form's rows hidden and shown in any order, before and
// after the window is first shown, are laid out at least their minimum height, in the order they
// were added, with their labels. The first case is the sequence that laid the data panel's CSV
// options out 0 px high with QFormLayout::setRowVisible (Qt 6.4): a layout computed with one set
// of rows shown, then the rows swapped before the window is shown; the same sequence through
// setRowVisible is run alongside and its outcome printed, so a Qt that fixes the defect is seen.
#include <QApplication>
#include <QComboBox>
#include <QFormLayout>
#include <QLabel>
#include <QLineEdit>
#include <QSpinBox>
#include <QTest>
#include <QVBoxLayout>
#include <array>

#include "ui/widgets/form_rows.h"

using namespace dpx::ui;

namespace {

// Five rows; B is two combo boxes one above the other (as the CSV options), E is wide enough to
// wrap under its label in a narrow form (WrapLongRows makes the form answer heightForWidth).
struct Form {
    QWidget window;
    QFormLayout* form = new QFormLayout;
    QLineEdit* a = new QLineEdit;
    QWidget* b = new QWidget;
    QLineEdit* c = new QLineEdit;
    QSpinBox* d = new QSpinBox;
    QComboBox* e = new QComboBox;
    std::array<QWidget*, 5> fields{a, b, c, d, e};

    Form() {
        auto* lines = new QVBoxLayout(b);
        lines->setContentsMargins(0, 0, 0, 0);
        lines->addWidget(new QComboBox);
        lines->addWidget(new QComboBox);
        e->addItem(QStringLiteral("a field wider than a narrow form leaves beside its label"));
        form->setRowWrapPolicy(QFormLayout::WrapLongRows);
        auto* outer = new QVBoxLayout(&window);
        outer->addLayout(form);
        window.resize(260, 400);
    }
    // The form computes its rows (as a scroll area asking the panel's height does before the
    // window is shown).
    void layOut() {
        (void)form->heightForWidth(240);
        window.layout()->activate();
    }
    void showWindow() {
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        QApplication::processEvents();
        window.layout()->activate();
    }
};

// Every shown row as tall as its field needs, none overlapping the next, in order.
void checkRows(const Form& f, const std::array<bool, 5>& shown, const char* where) {
    int lastBottom = -1;
    for (std::size_t i = 0; i < f.fields.size(); ++i) {
        QWidget* w = f.fields[i];
        if (!shown[i]) {
            QVERIFY2(!w->isVisible(), where);
            continue;
        }
        QVERIFY2(w->isVisible(), where);
        const int need = w->minimumSizeHint().height();
        QVERIFY2(w->height() >= need,
                 qPrintable(QStringLiteral("%1: row %2 is %3 px high, needs %4")
                                .arg(QLatin1String(where))
                                .arg(i)
                                .arg(w->height())
                                .arg(need)));
        QVERIFY2(w->y() > lastBottom, qPrintable(QStringLiteral("%1: row %2 overlaps the one above")
                                                     .arg(QLatin1String(where))
                                                     .arg(i)));
        lastBottom = w->geometry().bottom();
    }
}

}  // namespace

class TestFormRows : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void rowsSwappedBeforeTheFirstShow() {
        Form f;
        FormRows rows(f.form);
        const std::array<QString, 5> names{QStringLiteral("A"), QStringLiteral("B"),
                                           QStringLiteral("C"), QStringLiteral("D"),
                                           QStringLiteral("E")};
        for (std::size_t i = 0; i < f.fields.size(); ++i) {
            QLabel* label = rows.addRow(names[i], f.fields[i]);
            QCOMPARE(label->text(), names[i]);
            QCOMPARE(f.form->labelForField(f.fields[i]), label);
        }
        // As the data panel: built for an example (B hidden, D shown), laid out, then a session
        // opens a CSV file (B shown, D hidden) before the window shows.
        rows.setRowShown(f.b, false);
        f.layOut();
        rows.setRowShown(f.b, true);
        rows.setRowShown(f.d, false);
        QVERIFY(rows.isRowShown(f.b));
        QVERIFY(!rows.isRowShown(f.d));
        f.showWindow();
        checkRows(f, {true, true, true, false, true}, "after the first show");
        QCOMPARE(f.form->rowCount(), 4);

        // And back and forth with the window up, D put back between C and E.
        rows.setRowShown(f.d, true);
        rows.setRowShown(f.b, false);
        rows.setRowShown(f.b, false);  // idempotent
        f.window.layout()->activate();
        checkRows(f, {true, false, true, true, true}, "D shown, B hidden");
        int row = -1;
        QFormLayout::ItemRole role{};
        f.form->getWidgetPosition(f.d, &row, &role);
        QCOMPARE(row, 2);
        QCOMPARE(role, QFormLayout::FieldRole);
        QCOMPARE(qobject_cast<QLabel*>(f.form->labelForField(f.d))->text(), QStringLiteral("D"));
        rows.setRowShown(f.b, true);
        rows.setRowShown(f.a, false);
        f.window.layout()->activate();
        checkRows(f, {false, true, true, true, true}, "A hidden");
        f.form->getWidgetPosition(f.b, &row, &role);
        QCOMPARE(row, 0);
        rows.setRowShown(f.a, true);
        f.window.layout()->activate();
        checkRows(f, {true, true, true, true, true}, "all shown");
        for (std::size_t i = 0; i < f.fields.size(); ++i) {
            f.form->getWidgetPosition(f.fields[i], &row, &role);
            QCOMPARE(row, static_cast<int>(i));
        }
    }

    // The same sequence through QFormLayout::setRowVisible: printed, not asserted (the defect is
    // Qt's; FormRows exists because of it).
    void setRowVisibleForTheRecord() {
        Form f;
        const std::array<const char*, 5> names{"A", "B", "C", "D", "E"};
        for (std::size_t i = 0; i < f.fields.size(); ++i) {
            f.form->addRow(QString::fromLatin1(names[i]), f.fields[i]);
        }
        f.form->setRowVisible(f.b, false);
        f.layOut();
        f.form->setRowVisible(f.b, true);
        f.form->setRowVisible(f.d, false);
        f.showWindow();
        QStringList cut;
        for (std::size_t i = 0; i < f.fields.size(); ++i) {
            QWidget* w = f.fields[i];
            if (w->isVisible() && w->height() < w->minimumSizeHint().height()) {
                cut << QStringLiteral("%1 %2 px of %3")
                           .arg(QLatin1String(names[i]))
                           .arg(w->height())
                           .arg(w->minimumSizeHint().height());
            }
        }
        qInfo("Qt %s, the same rows through QFormLayout::setRowVisible: %s", qVersion(),
              cut.isEmpty() ? "every row whole"
                            : qPrintable(QStringLiteral("rows cut (the defect FormRows avoids): ") +
                                         cut.join(QStringLiteral(", "))));
    }

    void rowsWithoutLabels() {
        Form f;
        FormRows rows(f.form);
        rows.addRow(QStringLiteral("A"), f.a);
        rows.addRow(f.b);
        rows.addRow(QStringLiteral("C"), f.c);
        rows.addRow(f.d);
        rows.addRow(QStringLiteral("E"), f.e);
        rows.setRowShown(f.b, false);
        f.layOut();
        rows.setRowShown(f.b, true);
        rows.setRowShown(f.d, false);
        f.showWindow();
        checkRows(f, {true, true, true, false, true}, "spanning rows");
        int row = -1;
        QFormLayout::ItemRole role{};
        f.form->getWidgetPosition(f.b, &row, &role);
        QCOMPARE(row, 1);
        QCOMPARE(role, QFormLayout::SpanningRole);
        rows.setRowShown(f.d, true);
        f.form->getWidgetPosition(f.d, &row, &role);
        QCOMPARE(row, 3);
        QCOMPARE(role, QFormLayout::SpanningRole);
    }
};

QTEST_MAIN(TestFormRows)
#include "tst_form_rows.moc"
