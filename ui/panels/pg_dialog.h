// The PostgreSQL connection dialog of the data panel: host, port, database, user, password and the
// two timeouts, with "Test connection" (which lists the tables on a worker thread: the GUI never
// waits on the network) and an explicit opt-in to keep the password.
//
// Passwords: the session JSON never holds one (ExplorerState::toJson). The settings file holds one
// only when the user ticks "Remember password", and then in plain text (QSettings has no secure
// store); unticking removes it. Otherwise libpq's own PGPASSWORD and ~/.pgpass still apply.
#pragma once

#include <QDialog>

#include "ui/model/explorer_state.h"

class QCheckBox;
class QLabel;
class QLineEdit;
class QPushButton;
class QSpinBox;
template <class T>
class QFutureWatcher;

namespace dpx::ui {

class PgConnectionDialog : public QDialog {
    Q_OBJECT
public:
    // Starts from the connection fields of `s` (and a remembered password, if any).
    explicit PgConnectionDialog(const ExplorerState& s, QWidget* parent = nullptr);
    ~PgConnectionDialog() override;

    // Copies the dialog's connection into `s` (source PostgreSQL; the table is chosen later).
    void applyTo(ExplorerState& s) const;
    bool rememberPassword() const;
    // Lists the tables on a worker thread; testFinished reports the outcome.
    void testConnection();

    QLineEdit* hostEdit() const { return host_; }
    QLineEdit* databaseEdit() const { return database_; }
    QLineEdit* userEdit() const { return user_; }
    QLineEdit* passwordEdit() const { return password_; }
    QSpinBox* portBox() const { return port_; }
    QLabel* resultLabel() const { return result_; }

Q_SIGNALS:
    void testFinished(bool ok, const QString& message);

private:
    QLineEdit* host_;
    QLineEdit* database_;
    QLineEdit* user_;
    QLineEdit* password_;
    QSpinBox* port_;
    QSpinBox* connectTimeout_;
    QSpinBox* statementTimeout_;
    QCheckBox* remember_;
    QPushButton* test_;
    QLabel* result_;
    QFutureWatcher<QString>* watcher_;
};

// The settings key of a connection's remembered password ("user@host:port/database").
QString pgPasswordKey(const ExplorerState& s);
// The remembered password of the connection in `s`, or empty.
QString rememberedPgPassword(const ExplorerState& s);
// Stores the password of `s` in the settings (plain text) when `remember`, else removes it.
void storePgPassword(const ExplorerState& s, bool remember);

}  // namespace dpx::ui
