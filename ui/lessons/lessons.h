// The catalogue of classroom lessons (issue #21): their names (for `dpexplorer --lesson NAME`),
// titles and learning goals, the factory, and the Help ▸ Lessons list.
#pragma once

#include <QDialog>
#include <QString>
#include <QStringList>
#include <vector>

#include "ui/lessons/lesson_page.h"

class QListWidget;

namespace dpx::ui {

// Every lesson that exists, in teaching order.
const std::vector<LessonInfo>& lessonCatalogue();
// The names, comma-separated ("randomized-response, differencing, …").
QString lessonNames();
// A new page for the lesson `name`, or nullptr when there is no such lesson.
LessonPage* createLesson(const QString& name, QWidget* parent = nullptr);
// "unknown lesson 'x' (use randomized-response, …)".
QString unknownLessonMessage(const QString& name);
// The lesson as a window of its own (deleted on close), sized to `size` or, when empty, to the
// screen's available area.
LessonPage* openLessonWindow(const QString& name, QSize size = {});

// Help ▸ Lessons: each lesson with its learning goal; Open (or a double click) opens it.
class LessonsDialog : public QDialog {
    Q_OBJECT
public:
    explicit LessonsDialog(QWidget* parent = nullptr);
    QListWidget* list() const { return list_; }

private:
    void openSelected();
    QListWidget* list_ = nullptr;
};

}  // namespace dpx::ui
