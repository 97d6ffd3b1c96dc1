#include "ui/lessons/lessons.h"

#include <QDialogButtonBox>
#include <QGuiApplication>
#include <QLabel>
#include <QListWidget>
#include <QPushButton>
#include <QScreen>
#include <QVBoxLayout>

#include "ui/lessons/composition_lesson.h"
#include "ui/lessons/differencing_lesson.h"
#include "ui/lessons/membership_lesson.h"
#include "ui/lessons/post_processing_lesson.h"
#include "ui/lessons/randomized_response_lesson.h"
#include "ui/lessons/what_epsilon_lesson.h"

namespace dpx::ui {

const std::vector<LessonInfo>& lessonCatalogue() {
    static const std::vector<LessonInfo> lessons = {
        {QStringLiteral("randomized-response"), QObject::tr("Randomized response, coin by coin"),
         QObject::tr("A survey can learn how many people answer yes without anyone revealing "
                     "their own answer, and its estimate improves as more people take part.")},
        {QStringLiteral("differencing"), QObject::tr("The differencing attack"),
         QObject::tr("Two harmless-looking exact answers can reveal one person; noise calibrated "
                     "to ε limits how much any attacker can learn.")},
        {QStringLiteral("what-epsilon-means"), QObject::tr("What ε means"),
         QObject::tr("Under ε-DP every output is at most e^ε times more likely with one person "
                     "than without, which bounds every attacker's error rates.")},
        {QStringLiteral("composition"), QObject::tr("Composition: many questions"),
         QObject::tr("Every answer spends privacy: asked often enough, the same noisy question "
                     "reveals a person, unless one total budget caps what all answers spend.")},
        {QStringLiteral("membership"), QObject::tr("Membership: the tracing attack"),
         QObject::tr("An exact average can reveal who was in the data; calibrated noise keeps "
                     "every such attack inside the bounds that ε allows.")},
        {QStringLiteral("post-processing"), QObject::tr("Post-processing and accuracy"),
         QObject::tr("Transforming a DP release keeps its privacy but changes its error, and "
                     "the better transformation depends on the data and on ε.")},
    };
    return lessons;
}

QString lessonNames() {
    QStringList names;
    for (const LessonInfo& l : lessonCatalogue()) {
        names << l.name;
    }
    return names.join(QStringLiteral(", "));
}

LessonPage* createLesson(const QString& name, QWidget* parent) {
    for (const LessonInfo& l : lessonCatalogue()) {
        if (l.name != name) {
            continue;
        }
        if (name == QLatin1String("randomized-response")) {
            return new RandomizedResponseLesson(l, parent);
        }
        if (name == QLatin1String("differencing")) {
            return new DifferencingLesson(l, parent);
        }
        if (name == QLatin1String("what-epsilon-means")) {
            return new WhatEpsilonLesson(l, parent);
        }
        if (name == QLatin1String("composition")) {
            return new CompositionLesson(l, parent);
        }
        if (name == QLatin1String("membership")) {
            return new MembershipLesson(l, parent);
        }
        if (name == QLatin1String("post-processing")) {
            return new PostProcessingLesson(l, parent);
        }
    }
    return nullptr;
}

QString unknownLessonMessage(const QString& name) {
    return QObject::tr("unknown lesson '%1' (use %2)").arg(name, lessonNames());
}

LessonPage* openLessonWindow(const QString& name, QSize size) {
    LessonPage* page = createLesson(name);
    if (!page) {
        return nullptr;
    }
    page->setAttribute(Qt::WA_DeleteOnClose);
    if (size.isEmpty()) {
        const QScreen* screen = QGuiApplication::primaryScreen();
        size = screen ? screen->availableGeometry().size() : QSize(1280, 800);
    }
    page->resize(size);
    page->show();
    return page;
}

LessonsDialog::LessonsDialog(QWidget* parent) : QDialog(parent) {
    setWindowTitle(tr("Lessons"));
    list_ = new QListWidget;
    list_->setObjectName(QStringLiteral("lessonList"));
    list_->setWordWrap(true);
    for (const LessonInfo& l : lessonCatalogue()) {
        auto* item = new QListWidgetItem(QStringLiteral("%1\n%2").arg(l.title, l.goal));
        item->setData(Qt::UserRole, l.name);
        item->setToolTip(tr("dpexplorer --lesson %1").arg(l.name));
        list_->addItem(item);
    }
    list_->setCurrentRow(0);
    auto* intro =
        new QLabel(tr("Classroom lessons: each is a sequence of steps (← / → step "
                      "through them) and can be exported as slides."));
    intro->setWordWrap(true);
    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Open | QDialogButtonBox::Close);
    connect(buttons, &QDialogButtonBox::accepted, this, &LessonsDialog::openSelected);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    connect(list_, &QListWidget::itemActivated, this, &LessonsDialog::openSelected);
    auto* layout = new QVBoxLayout(this);
    layout->addWidget(intro);
    layout->addWidget(list_, 1);
    layout->addWidget(buttons);
    resize(560, 420);
}

void LessonsDialog::openSelected() {
    if (QListWidgetItem* item = list_->currentItem()) {
        const QScreen* screen = QGuiApplication::primaryScreen();
        const QSize avail = screen ? screen->availableGeometry().size() : QSize(1280, 800);
        openLessonWindow(item->data(Qt::UserRole).toString(), avail * 0.85);
        accept();
    }
}

}  // namespace dpx::ui
