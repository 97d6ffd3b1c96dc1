// The document of the window: the current ExplorerState, an undo stack recording every change,
// and session files. Widgets never change each other; they call apply() (or a setter) and redraw
// when changed() says what changed. Invalid states are refused with the reason and change nothing.
#pragma once

#include <QObject>
#include <QString>
#include <QStringList>
#include <QUndoStack>
#include <functional>
#include <memory>

#include "core/base/expected.h"
#include "core/table/table.h"
#include "ui/model/explorer_state.h"

namespace dpx::ui {

class ExplorerDocument : public QObject {
    Q_OBJECT
public:
    explicit ExplorerDocument(QObject* parent = nullptr);

    const ExplorerState& state() const { return state_; }
    // The table of the data last loaded (ExplorerEngine loads it off the GUI thread): one
    // attribute per chosen column (core/table/table.h). Null until a load succeeds, and after a
    // failed or cancelled one. Not part of the undoable state: it follows from it.
    const std::shared_ptr<const ContingencyTable>& table() const { return table_; }
    void setTable(std::shared_ptr<const ContingencyTable> table);
    QUndoStack* undoStack() { return &undo_; }

    // Makes `next` the state as one undoable step named `description` (shown as "Undo <...>").
    // Consecutive steps with the same non-empty `mergeKey` merge into one (dragging a slider is
    // one step). No-op if nothing changes. Refused, with the reason, if next.validate() fails.
    Status apply(const ExplorerState& next, const QString& description,
                 const QString& mergeKey = {});

    Status setEpsilon(double epsilon);
    Status setDelta(double delta);
    Status setMechanism(MechanismChoice m);
    Status setSeed(std::uint64_t seed);
    Status setEstimator(EstimatorKind e);
    Status setExample(const QString& id);

    // Session files: the state as JSON (ExplorerState::toJson). Loading is one undoable step;
    // a broken file changes nothing and the error says why. The file never holds a password;
    // `amend` may complete the loaded state before it applies (a remembered password).
    Status saveSession(const QString& path) const;
    Status loadSession(const QString& path, const std::function<void(ExplorerState&)>& amend = {});
    // Keys of the last loaded session that were not understood (ExplorerState::unknownKeys).
    const QStringList& ignoredSessionKeys() const { return ignoredKeys_; }
    // Old spellings the last loaded session used (ExplorerState::deprecations): it opened, and
    // is saved in the current spelling.
    const QStringList& sessionDeprecations() const { return deprecations_; }

Q_SIGNALS:
    // After every change (including undo and redo): which aspects changed, and the new state.
    void changed(unsigned flags, const dpx::ui::ExplorerState& state);
    // After every load of the data: table() is the new table (or null).
    void tableChanged();

private:
    QStringList ignoredKeys_;
    QStringList deprecations_;
    friend class StateCommand;
    void setState(const ExplorerState& s);

    ExplorerState state_;
    QUndoStack undo_;
    std::shared_ptr<const ContingencyTable> table_;
};

}  // namespace dpx::ui
