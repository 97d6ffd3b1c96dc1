#include "ui/model/document.h"

#include <QFile>
#include <QFileInfo>
#include <QJsonDocument>
#include <QSaveFile>
#include <QUndoCommand>

namespace dpx::ui {

class StateCommand : public QUndoCommand {
public:
    StateCommand(ExplorerDocument* doc, ExplorerState before, ExplorerState after,
                 const QString& text, int id)
        : doc_(doc), before_(std::move(before)), after_(std::move(after)), id_(id) {
        setText(text);
    }
    void redo() override { doc_->setState(after_); }
    void undo() override { doc_->setState(before_); }
    int id() const override { return id_; }
    bool mergeWith(const QUndoCommand* other) override {
        const auto* o = static_cast<const StateCommand*>(other);
        after_ = o->after_;
        // Dragging back to where the drag started leaves nothing to undo.
        setObsolete(after_ == before_);
        return true;
    }

private:
    ExplorerDocument* doc_;
    ExplorerState before_, after_;
    int id_;
};

ExplorerDocument::ExplorerDocument(QObject* parent) : QObject(parent) {
    undo_.setUndoLimit(500);
}

void ExplorerDocument::setState(const ExplorerState& s) {
    const unsigned flags = changesBetween(state_, s);
    state_ = s;
    if (flags != 0) {
        Q_EMIT changed(flags, state_);
    }
}

Status ExplorerDocument::apply(const ExplorerState& next, const QString& description,
                               const QString& mergeKey) {
    if (auto st = next.validate(); !st) {
        return st;
    }
    if (next == state_) {
        return okStatus();
    }
    // Merge ids must be ≥ 0 and stable per key; -1 means "never merge".
    const int id = mergeKey.isEmpty() ? -1 : static_cast<int>(qHash(mergeKey) & 0x3fffffff);
    undo_.push(new StateCommand(this, state_, next, description, id));
    return okStatus();
}

Status ExplorerDocument::setEpsilon(double epsilon) {
    ExplorerState s = state_;
    s.mechanism.epsilon = epsilon;
    return apply(s, tr("change ε"), QStringLiteral("epsilon"));
}

Status ExplorerDocument::setDelta(double delta) {
    ExplorerState s = state_;
    s.mechanism.delta = delta;
    return apply(s, tr("change δ"), QStringLiteral("delta"));
}

Status ExplorerDocument::setMechanism(MechanismChoice m) {
    ExplorerState s = state_;
    s.mechanism.kind = m;
    return apply(s, tr("choose %1").arg(mechanismChoiceTitle(m)));
}

Status ExplorerDocument::setSeed(std::uint64_t seed) {
    ExplorerState s = state_;
    s.mechanism.seed = seed;
    return apply(s, tr("new draw"));
}

Status ExplorerDocument::setEstimator(EstimatorKind e) {
    ExplorerState s = state_;
    s.mechanism.estimator = e;
    return apply(s, tr("choose estimator"));
}

Status ExplorerDocument::setExample(const QString& id) {
    ExplorerState s = state_;
    s.data.source = SourceKind::Example;
    s.data.exampleId = id;
    s.data.enterSource(state_.data);  // the example's column and binning of earlier come back
    return apply(s, tr("open example"));
}

Status ExplorerDocument::saveSession(const QString& path) const {
    QSaveFile f(path);
    if (!f.open(QIODevice::WriteOnly)) {
        return Error{"cannot write '" + path.toStdString() + "': " + f.errorString().toStdString()};
    }
    f.write(QJsonDocument(state_.toJson()).toJson(QJsonDocument::Indented));
    if (!f.commit()) {
        return Error{"cannot write '" + path.toStdString() + "': " + f.errorString().toStdString()};
    }
    return okStatus();
}

Status ExplorerDocument::loadSession(const QString& path,
                                     const std::function<void(ExplorerState&)>& amend) {
    if (QFileInfo(path).isDir()) {
        return Error{"cannot open '" + path.toStdString() + "': it is a folder"};
    }
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly)) {
        return Error{"cannot open '" + path.toStdString() + "': " + f.errorString().toStdString()};
    }
    if (f.size() > 16 * 1024 * 1024) {
        return Error{"'" + path.toStdString() + "' is too large for a session file"};
    }
    QJsonParseError pe;
    const QJsonDocument doc = QJsonDocument::fromJson(f.readAll(), &pe);
    if (pe.error != QJsonParseError::NoError) {
        return Error{"'" + path.toStdString() + "' is not valid JSON: " +
                     pe.errorString().toStdString() + " at byte " + std::to_string(pe.offset)};
    }
    if (!doc.isObject()) {
        return Error{"'" + path.toStdString() + "' is not a DP Explorer session (not an object)"};
    }
    auto s = ExplorerState::fromJson(doc.object());
    if (!s) {
        return Error{"'" + path.toStdString() + "': " + s.error().message};
    }
    ExplorerState loaded = *s;
    if (amend) {
        amend(loaded);
    }
    ignoredKeys_ = ExplorerState::unknownKeys(doc.object());
    deprecations_ = ExplorerState::deprecations(doc.object());
    return apply(loaded, tr("open session"));
}

void ExplorerDocument::setTable(std::shared_ptr<const ContingencyTable> table) {
    table_ = std::move(table);
    Q_EMIT tableChanged();
}

}  // namespace dpx::ui
