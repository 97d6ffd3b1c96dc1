// Lesson 1 (issue #21): randomized response coin by coin (Warner 1965). A class of people answer a
// sensitive yes/no question through two coins; the class sees each person's coins and report, the
// tally, and the unbiased estimate with its interval converging as people are added (stepped, or
// run with a speed control); the teacher types the class's real tally and sees the estimate, the
// interval and the ε of the protocol (ln 3 for fair coins). Numbers: core/teaching.
#pragma once

#include <vector>

#include "core/teaching/teaching.h"
#include "ui/lessons/lesson_page.h"

class QLabel;
class QPushButton;
class QSlider;
class QSpinBox;
class QTimer;
class QWidget;

namespace dpx::ui {

class RandomizedResponseLesson : public LessonPage {
    Q_OBJECT
public:
    explicit RandomizedResponseLesson(LessonInfo info, QWidget* parent = nullptr);

    // The simulated class (fixed seed) and how many of them have flipped so far.
    static constexpr int kClassSize = 200;
    static constexpr double kTrueYesShare = 0.3;
    int peopleShown() const { return shown_; }
    const std::vector<teaching::Person>& people() const { return people_; }
    // The estimate after the people shown so far, and for the teacher's tally (step 4).
    Expected<teaching::TallyEstimate> simulatedEstimate() const;
    Expected<teaching::TallyEstimate> classEstimate() const;
    bool running() const;

public Q_SLOTS:
    void addPerson();
    void setPeopleShown(int n);
    void setRunning(bool run);
    void setClassTally(int people, int yes);

protected:
    void showStep(int step) override;

private:
    void drawCoins();
    void drawConvergence();
    void drawClass();
    QString peopleTable() const;

    std::vector<teaching::Person> people_;
    int shown_ = 10;
    int lastStep_ = -1;
    QWidget* simulationControls_ = nullptr;
    QPushButton* add_ = nullptr;
    QPushButton* run_ = nullptr;
    QSlider* speed_ = nullptr;
    QLabel* peopleView_ = nullptr;
    QWidget* classControls_ = nullptr;
    QSpinBox* classPeople_ = nullptr;
    QSpinBox* classYes_ = nullptr;
    QTimer* timer_ = nullptr;
};

}  // namespace dpx::ui
